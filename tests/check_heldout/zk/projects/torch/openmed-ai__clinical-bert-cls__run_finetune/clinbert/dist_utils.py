import random

import numpy as np
import torch
import horovod.torch as hvd


def setup_distributed(seed=42):
    hvd.init()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_main_process():
    return hvd.rank() == 0
