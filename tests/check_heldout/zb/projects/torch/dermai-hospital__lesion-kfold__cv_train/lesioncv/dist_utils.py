import os

import torch
import horovod.torch as hvd


def wrap_and_sync(model, optimizer):
    """Horovod-wrap a freshly built optimizer and start every worker from rank 0's weights."""
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return optimizer


def summed_confusion(conf):
    return hvd.allreduce(conf, op=hvd.Sum, name="confusion")


def save_on_root(obj, path):
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save(obj, path)
