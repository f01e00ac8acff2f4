import logging

import torch
import horovod.torch as hvd

logger = logging.getLogger(__name__)


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    logger.info("horovod rank %d/%d on %s", hvd.rank(), hvd.size(), device)
    return device


def global_mean(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()
