"""Thin Horovod layer so the training scripts stay readable.

Everything distributed lives here: start-up, device choice, optimizer wrapping,
state sync, rank-0 saving and metric reduction."""
import os

import horovod.torch as hvd
import torch


def setup(seed=0):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(seed)
    return device


def is_main():
    return hvd.rank() == 0


def wrap(optimizer, module, compression="none"):
    comp = hvd.Compression.fp16 if compression == "fp16" else hvd.Compression.none
    return hvd.DistributedOptimizer(optimizer, named_parameters=module.named_parameters(),
                                    compression=comp)


def sync(module, optimizer):
    hvd.broadcast_parameters(module.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def save(state, out_dir, name):
    if not is_main():
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save(state, os.path.join(out_dir, name))


def mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name).item()
