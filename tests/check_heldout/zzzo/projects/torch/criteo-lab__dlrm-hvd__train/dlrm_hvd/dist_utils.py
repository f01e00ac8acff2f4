import torch
import horovod.torch as hvd


def setup(use_cuda=True):
    hvd.init()
    if use_cuda and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_master():
    return hvd.rank() == 0


def log(*a):
    if hvd.rank() == 0:
        print("[dlrm]", *a, flush=True)
