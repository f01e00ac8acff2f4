"""Distributed helpers (Horovod backend) and small training utilities."""
import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def init_distributed_mode(args):
    hvd.init()
    args.rank = hvd.rank()
    args.local_rank = hvd.local_rank()
    args.world_size = hvd.size()
    # kept from the torchrun version of this repo
    args.distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if torch.cuda.is_available():
        torch.cuda.set_device(args.local_rank)
        args.device = torch.device("cuda", args.local_rank)
    else:
        args.device = torch.device("cpu")


def get_world_size():
    return hvd.world_size()


def get_rank():
    return hvd.rank()


def is_main_process():
    return get_rank() == 0


def save_on_master(state, path):
    if is_main_process():
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save(state, path)


def reduce_dict(input_dict, average=True):
    world_size = get_world_size()
    if world_size < 2:
        return {k: v.detach() for k, v in input_dict.items()}
    names = sorted(input_dict)
    values = torch.stack([input_dict[k].detach() for k in names])
    values = hvd.allreduce(values, op=hvd.Average if average else hvd.Sum)
    return dict(zip(names, values))


class AvgMeter:
    def __init__(self, num=40):
        self.num = num
        self.reset()

    def reset(self):
        self.val, self.avg, self.sum, self.count, self.losses = 0, 0, 0, 0, []

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count
        self.losses.append(val)

    def show(self):
        return float(np.mean(self.losses[-self.num:]))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
