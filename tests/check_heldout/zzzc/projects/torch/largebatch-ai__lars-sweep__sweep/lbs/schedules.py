import math


def peak_lr(cfg):
    # linear scaling rule (Goyal et al.): lr grows with the batch
    return cfg.base_lr * cfg.batch_size / cfg.ref_batch


def lr_at(cfg, epoch_float):
    peak = peak_lr(cfg)
    if epoch_float < cfg.warmup_epochs:
        return peak * epoch_float / cfg.warmup_epochs
    t = (epoch_float - cfg.warmup_epochs) / max(1e-8, cfg.epochs - cfg.warmup_epochs)
    return 0.5 * peak * (1 + math.cos(math.pi * min(1.0, t)))
