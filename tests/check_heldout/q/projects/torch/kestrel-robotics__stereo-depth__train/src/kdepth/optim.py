import horovod.torch as hvd
import torch


def build_optimizer(model, cfg):
    # linear scaling rule: more workers -> larger effective batch -> proportionally larger lr
    lr = cfg.lr * hvd.size()
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg.weight_decay)
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


def build_scheduler(optimizer, cfg):
    return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
