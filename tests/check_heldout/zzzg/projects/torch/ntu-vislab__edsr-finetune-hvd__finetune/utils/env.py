import os
import random

import horovod.torch as hvd
import numpy as np
import torch


def init_distributed(seed=0):
    """Initialise horovod, bind this process to its GPU and seed everything."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    random.seed(seed + hvd.rank())
    np.random.seed(seed + hvd.rank())
    torch.manual_seed(seed)
    return device
