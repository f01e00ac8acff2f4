"""Per-stage set-up: freeze/unfreeze and a fresh optimizer for each stage."""
import horovod.torch as hvd
import torch


def set_backbone(model, trainable):
    for name, p in model.named_parameters():
        if not name.startswith("fc."):
            p.requires_grad_(trainable)


def head_optimizer(model, stage, cfg):
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    opt = torch.optim.AdamW([p for _, p in params], lr=stage.lr * hvd.size(),
                            weight_decay=cfg.weight_decay)
    return hvd.DistributedOptimizer(opt, named_parameters=params)


def full_optimizer(model, stage, cfg):
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    return torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                              {"params": no_decay, "weight_decay": 0.0}],
                             lr=stage.lr * hvd.size())


def build_optimizer(model, stage, cfg):
    set_backbone(model, stage.train_backbone)
    if stage.train_backbone:
        return full_optimizer(model, stage, cfg)
    return head_optimizer(model, stage, cfg)
