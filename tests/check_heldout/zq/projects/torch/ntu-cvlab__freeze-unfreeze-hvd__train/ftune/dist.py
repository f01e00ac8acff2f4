import torch
import horovod.torch as hvd


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def sum_all(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)


def log0(msg):
    if hvd.rank() == 0:
        print(msg, flush=True)
