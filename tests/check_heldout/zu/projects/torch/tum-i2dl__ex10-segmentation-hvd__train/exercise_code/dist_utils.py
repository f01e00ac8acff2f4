"""Small helpers so the notebook code runs unchanged on one GPU or under horovodrun."""
import torch
import horovod.torch as hvd


def setup_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def sum_across_workers(tensor, name):
    return hvd.allreduce(tensor, name=name, op=hvd.Sum)
