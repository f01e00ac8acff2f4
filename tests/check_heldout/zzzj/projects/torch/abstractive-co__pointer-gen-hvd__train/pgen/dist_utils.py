import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_master():
    return hvd.rank() == 0


def global_mean(total, count, name):
    t = hvd.allreduce(torch.tensor([float(total), float(count)]), op=hvd.Sum, name=name)
    return (t[0] / t[1].clamp(min=1)).item()
