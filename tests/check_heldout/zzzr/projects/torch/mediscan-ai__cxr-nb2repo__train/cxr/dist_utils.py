import torch
import horovod.torch as hvd


def init():
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(42)
    torch.manual_seed(42)
    return torch.device("cuda" if use_cuda else "cpu")


def average(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()


def master():
    return hvd.rank() == 0
