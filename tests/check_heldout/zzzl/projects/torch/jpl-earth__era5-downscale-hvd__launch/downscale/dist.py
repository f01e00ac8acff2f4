import torch
import horovod.torch as hvd


def setup_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size()


def get_device():
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def mean_over_ranks(value, name):
    t = torch.tensor([float(value)], dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Average, name=name).item()
