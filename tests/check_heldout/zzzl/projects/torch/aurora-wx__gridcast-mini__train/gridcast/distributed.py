import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return device


def is_root():
    return hvd.rank() == 0


def log(*a):
    if hvd.rank() == 0:
        print("[gridcast]", *a, flush=True)


def allreduce_sum(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)
