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


def global_mean(total, count, name):
    t = torch.tensor([float(total), float(count)])
    t = hvd.allreduce(t, op=hvd.Sum, name=name)
    return (t[0] / t[1].clamp(min=1.0)).item()
