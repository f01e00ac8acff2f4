import os

import torch
import horovod.torch as hvd


def init_distributed(use_cuda):
    hvd.init()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size()


def is_main_process():
    return hvd.rank() == 0


def broadcast_model(model, optimizer):
    hvd.broadcast_parameters(model.parameters(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def all_sum(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)


def save_on_master(state, path):
    if is_main_process():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save(state, path)
