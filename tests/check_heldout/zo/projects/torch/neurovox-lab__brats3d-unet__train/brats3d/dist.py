"""Thin helpers around horovod.torch so that train.py stays readable."""
import os

import torch
import horovod.torch as hvd


def setup(seed=0):
    """Initialise Horovod, pick the device for this worker and seed torch."""
    hvd.init()
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        # one GPU per worker
        torch.cuda.set_device(hvd.rank())
        torch.backends.cudnn.benchmark = True
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    return device


def is_root():
    return hvd.rank() == 0


def log(*msg):
    if is_root():
        print("[brats3d]", *msg, flush=True)


def wrap(model, optimizer):
    """Sync initial state from rank 0 and return the distributed optimizer."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
