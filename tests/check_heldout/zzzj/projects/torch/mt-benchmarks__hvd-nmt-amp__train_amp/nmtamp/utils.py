import os

import torch
import horovod.torch as hvd


def inverse_sqrt(update, warmup):
    update = max(update, 1)
    return min(update / warmup, (warmup / update) ** 0.5)


def reduce_sum(values, name):
    return hvd.allreduce(torch.tensor(values, dtype=torch.float64), op=hvd.Sum, name=name).tolist()


def save_on_master(state, save_dir, tag):
    if hvd.rank() != 0:
        return
    os.makedirs(save_dir, exist_ok=True)
    torch.save(state, os.path.join(save_dir, f"checkpoint_{tag}.pt"))
