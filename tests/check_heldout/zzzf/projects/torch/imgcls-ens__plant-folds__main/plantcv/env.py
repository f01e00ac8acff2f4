import logging
import sys

import torch
import horovod.torch as hvd

log = logging.getLogger("plantcv")


def setup_env(verbose=True):
    """hvd.init + device + logging. Returns the torch.device to use."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    level = logging.INFO if (verbose and hvd.rank() == 0) else logging.WARNING
    logging.basicConfig(stream=sys.stdout, level=level,
                        format="%(asctime)s [%(name)s] %(message)s")
    log.info("rank %d/%d, local %d/%d, device %s", hvd.rank(), hvd.size(),
             hvd.local_rank(), hvd.local_world_size(), device)
    return device
