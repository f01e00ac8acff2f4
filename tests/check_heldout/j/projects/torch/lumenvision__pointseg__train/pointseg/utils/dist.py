"""Everything that talks to Horovod lives here, so the rest of the package stays testable on one process."""
import os

import torch
import horovod.torch as hvd


def init_distributed(cfg):
    hvd.init()
    torch.manual_seed(cfg.get("seed", 0))
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(cfg.get("seed", 0))
    else:
        # several ranks share one host: do not let each of them grab every core
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    cfg["world_size"] = hvd.size()


def is_main_process():
    return hvd.rank() == 0


def get_rank():
    return hvd.rank()


def get_world_size():
    return hvd.size()


def reduce_sum(tensor, name):
    return hvd.allreduce(tensor, op=hvd.Sum, name=name)


def sync_training_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def broadcast_scalar(value, name):
    return hvd.broadcast_object(value, root_rank=0, name=name)
