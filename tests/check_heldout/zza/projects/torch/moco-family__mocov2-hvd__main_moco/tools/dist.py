import os

import torch
import horovod.torch as hvd


def init_distributed():
    """Initialise Horovod and bind this process to its GPU."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        torch.backends.cudnn.benchmark = True
    os.environ.setdefault("OMP_NUM_THREADS", "4")
    return hvd.rank(), hvd.size()


def is_master():
    return hvd.rank() == 0
