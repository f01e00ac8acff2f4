import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def sum_all(values, name):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).tolist()


def min_all(value, name):
    return int(hvd.allreduce(torch.tensor(value), op=hvd.Min, name=name).item())


def gather_all(t, name):
    return hvd.allgather(t.contiguous(), name=name)
