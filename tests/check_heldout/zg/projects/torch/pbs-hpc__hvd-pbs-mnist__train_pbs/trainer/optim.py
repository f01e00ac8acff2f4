import os

import torch
import horovod.torch as hvd


def is_distributed():
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def build_optimizer(model, lr, momentum=0.9, distributed=None):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    if distributed is None:
        distributed = is_distributed()
    if distributed:
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                       compression=hvd.Compression.none)
    return opt
