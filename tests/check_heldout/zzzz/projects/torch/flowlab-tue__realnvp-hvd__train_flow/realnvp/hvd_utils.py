"""horovod helpers"""
import torch
import horovod.torch as hvd


def init_horovod(use_cuda=True):
    hvd.init()
    use_cuda = use_cuda and torch.cuda.is_available()
    if use_cuda:
        # one GPU per process
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    return device


def rank0_print(*a, **kw):
    if hvd.rank() == 0:
        print(*a, **kw)
