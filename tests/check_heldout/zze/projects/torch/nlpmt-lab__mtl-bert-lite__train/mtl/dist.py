import os

import torch
import horovod.torch as hvd


def setup_horovod():
    """Init Horovod and return the device this worker should use."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def global_mean(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()
