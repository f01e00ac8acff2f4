import torch
import horovod.torch as hvd


def init_dist():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def rank0():
    return hvd.rank() == 0
