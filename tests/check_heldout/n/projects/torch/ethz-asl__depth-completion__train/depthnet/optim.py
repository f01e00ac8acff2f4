import horovod.torch as hvd
import torch


def build_optimizer(cfg, model):
    """Adam with the linear scaling rule (Goyal et al.): lr grows with the number of workers."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim == 1 else decay).append(p)
    lr = cfg.lr * hvd.size()
    return torch.optim.Adam([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr)


def build_scheduler(cfg, optimizer):
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg.lr_decay_epochs, gamma=0.5)
