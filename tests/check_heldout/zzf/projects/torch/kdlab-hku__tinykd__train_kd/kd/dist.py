"""Horovod glue used by the training entry points."""
import torch
import horovod.torch as hvd


def setup_horovod():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    # keep CPU data workers from oversubscribing a shared node
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return hvd.rank(), hvd.size()


def is_master():
    return hvd.rank() == 0


def reduce_sum(value, name):
    t = torch.tensor(float(value), dtype=torch.float64)
    return hvd.allreduce(t, name=name, op=hvd.Sum).item()


def log(*msg):
    if is_master():
        print("[tinykd]", *msg, flush=True)
