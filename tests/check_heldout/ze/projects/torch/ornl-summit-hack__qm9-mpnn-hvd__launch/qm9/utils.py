import os
import time

import torch

import horovod.torch as hvd


def log(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)


def save_rank0(model, path):
    if hvd.rank() == 0:
        torch.save(model.state_dict(), path)


class EpochTimer:
    """Wall time per epoch on rank 0, for the scaling plot in the hackathon report."""

    def __init__(self):
        self.times = []
        self._t0 = None

    def start(self):
        self._t0 = time.perf_counter()

    def stop(self):
        self.times.append(time.perf_counter() - self._t0)
        return self.times[-1]


def write_scaling_row(path, nranks, epoch_times, mae):
    if hvd.rank() != 0:
        return
    new = not os.path.exists(path)
    with open(path, "a") as f:
        if new:
            f.write("ranks,mean_epoch_s,val_mae\n")
        f.write(f"{nranks},{sum(epoch_times) / len(epoch_times):.3f},{mae:.5f}\n")
