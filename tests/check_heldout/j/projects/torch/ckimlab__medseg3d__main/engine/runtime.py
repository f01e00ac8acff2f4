"""Process-level setup: Horovod, device, seeds."""
import random
from dataclasses import dataclass

import numpy as np
import torch
import horovod.torch as hvd


@dataclass
class Runtime:
    rank: int
    local_rank: int
    world_size: int
    device: torch.device

    @property
    def is_root(self):
        return self.rank == 0


def start(no_cuda=False, seed=0):
    hvd.init()
    use_cuda = torch.cuda.is_available() and not no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
        torch.set_num_threads(1)
    # same seed everywhere: weights are broadcast anyway, data order comes from the sampler
    random.seed(seed)
    np.random.seed(seed + hvd.rank())
    torch.manual_seed(seed)
    return Runtime(hvd.rank(), hvd.local_rank(), hvd.size(), device)
