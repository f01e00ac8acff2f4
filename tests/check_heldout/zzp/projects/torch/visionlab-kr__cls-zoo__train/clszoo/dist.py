import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(1)


def is_master():
    return hvd.rank() == 0


def all_sum(*values):
    t = torch.tensor([float(v) for v in values], dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name="all_sum").tolist()
