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


def global_sum(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, op=hvd.Sum, name=name).item()
