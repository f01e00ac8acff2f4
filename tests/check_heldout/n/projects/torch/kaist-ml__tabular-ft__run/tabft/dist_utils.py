import os

import horovod.torch as hvd
import torch


def setup_device():
    """Call after hvd.init(). One GPU per process; CPU threads split between local processes."""
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    threads = max(1, (os.cpu_count() or 1) // hvd.local_size())
    torch.set_num_threads(threads)
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def log(*args):
    if is_main():
        print("[tabft]", *args, flush=True)
