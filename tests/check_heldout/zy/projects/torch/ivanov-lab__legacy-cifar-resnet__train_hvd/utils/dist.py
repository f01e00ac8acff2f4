import logging
import os

import torch
import horovod.torch as hvd

logger = logging.getLogger(__name__)


def init_distributed():
    """Start Horovod.

    The env check is from the DDP version of this script (torch.distributed.launch
    exported WORLD_SIZE); single-process debugging runs skip the init.
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        hvd.init()
        logger.info("horovod initialised: rank %d / %d", hvd.rank(), hvd.size())
        return True
    logger.info("WORLD_SIZE=%d: not initialising horovod", world)
    return False


def is_root():
    return hvd.rank() == 0


def metric_average(value, name):
    tensor = torch.tensor(value, dtype=torch.float64)
    avg = hvd.allreduce(tensor, name=name, op=hvd.Average)
    return avg.item()
