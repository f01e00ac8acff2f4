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


def world_size():
    return hvd.size()


def mean_over_workers(value, name):
    """Average a python float over workers (each worker evaluates the same number of samples)."""
    t = torch.tensor([float(value)])
    return hvd.allreduce(t, name=name).item()
