"""Everything horovod-specific lives here."""
import random

import numpy as np
import torch
import horovod.torch as hvd


def setup(cfg):
    hvd.init()
    seed = cfg.get("seed", 0)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    if cfg["train"].get("cuda", True) and torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda", hvd.rank())
    return torch.device("cpu")


def is_master():
    return hvd.rank() == 0


def world_size():
    return hvd.size()


def mean_over_workers(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, op=hvd.Average, name=name).item()
