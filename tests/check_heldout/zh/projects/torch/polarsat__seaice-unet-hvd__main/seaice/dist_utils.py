import os

import torch
import horovod.torch as hvd


def init_distributed():
    """Start horovod when the job was launched with more than one worker.

    Single-GPU debugging runs (`python main.py ...`) skip it.
    """
    world_size = int(os.environ.get('WORLD_SIZE', '1'))
    if world_size > 1:
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
    return world_size > 1


def global_mean(value, name):
    t = torch.tensor(value, dtype=torch.float64)
    return hvd.allreduce(t, name=name, op=hvd.Average).item()


def global_sum(tensor, name):
    return hvd.allreduce(tensor, name=name, op=hvd.Sum)
