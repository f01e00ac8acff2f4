import torch
import horovod.torch as hvd


def setup():
    """hvd.init() + one GPU per process. Returns the local rank."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(42)
    return hvd.local_rank()


def is_main():
    return hvd.rank() == 0


def reduce_mean(t, name=None):
    return hvd.allreduce(t.detach().float().cpu(), name=name).item()
