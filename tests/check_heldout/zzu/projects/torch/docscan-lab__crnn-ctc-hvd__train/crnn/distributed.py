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


def sum_across_ranks(*values):
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name="sum_across_ranks").tolist()
