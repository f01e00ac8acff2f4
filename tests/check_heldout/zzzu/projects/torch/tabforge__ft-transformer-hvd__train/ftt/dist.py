import os

import horovod.torch as hvd
import torch


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // hvd.local_size()))
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def gather_predictions(scores, labels):
    # variable length per worker is fine for allgather (first dim may differ)
    return hvd.allgather(scores, name="val_scores"), hvd.allgather(labels, name="val_labels")


def log(*a):
    if is_main():
        print(*a, flush=True)
