import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def init_distributed(seed=0, deterministic=False):
    """Horovod init, one GPU per process, same seed everywhere."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        torch.backends.cudnn.benchmark = not deterministic
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    return hvd.rank(), hvd.local_rank(), hvd.size()


def master_only(fn):
    def wrapper(*a, **kw):
        if hvd.rank() == 0:
            return fn(*a, **kw)
    return wrapper


@master_only
def log(msg):
    print(msg, flush=True)
