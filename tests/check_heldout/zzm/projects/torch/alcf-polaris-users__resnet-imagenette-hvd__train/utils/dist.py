"""Horovod setup, adapted from the ALCF Polaris hands-on (day 2, data parallel)."""
import os
import random
from dataclasses import dataclass

import numpy as np
import torch
import horovod.torch as hvd


@dataclass
class DistContext:
    rank: int
    local_rank: int
    size: int
    device: torch.device


def init_horovod(seed: int = 0, threads: int = 4) -> DistContext:
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", threads)))
    # same seed everywhere: the model is broadcast anyway, the sampler takes care of the data
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return DistContext(hvd.rank(), hvd.local_rank(), hvd.size(), device)


def is_root() -> bool:
    return hvd.rank() == 0
