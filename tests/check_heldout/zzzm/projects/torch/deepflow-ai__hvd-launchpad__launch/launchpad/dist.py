import os

import torch
import horovod.torch as hvd


def is_main():
    return hvd.rank() == 0


def metric_average(value, name):
    return hvd.allreduce(torch.tensor(value, dtype=torch.float32), name=name,
                         op=hvd.Average).item()


def save_on_main(state, ckpt_dir, fname):
    if not is_main():
        return None
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, fname)
    torch.save(state, path)
    return path
