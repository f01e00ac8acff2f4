import torch
import horovod.torch as hvd


def setup_horovod():
    hvd.init()
    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def all_sum(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)
