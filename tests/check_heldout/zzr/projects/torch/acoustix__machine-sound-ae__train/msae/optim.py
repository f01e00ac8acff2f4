import torch
import horovod.torch as hvd


def build_optimizer(model, cfg, distributed=False):
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    if distributed:
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    return opt


def build_scheduler(opt, cfg):
    return torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=5)
