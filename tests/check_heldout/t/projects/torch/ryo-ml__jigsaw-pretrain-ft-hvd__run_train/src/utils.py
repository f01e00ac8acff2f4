import os

import torch
import horovod.torch as hvd


def seed_all(seed):
    import random
    import numpy as np
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def log(*msg):
    if hvd.rank() == 0:
        print(*msg, flush=True)


def save_rank0(obj, out_dir, name):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save(obj, os.path.join(out_dir, name))


def global_mean(total, count, name):
    t = hvd.allreduce(torch.tensor([float(total), float(count)]), op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()
