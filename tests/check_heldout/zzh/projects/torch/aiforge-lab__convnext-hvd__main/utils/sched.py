import math


def cosine_with_warmup(base_lr, epoch, it, iters_per_epoch, warmup_epochs, total_epochs, min_lr=1e-6):
    t = epoch + it / iters_per_epoch
    if t < warmup_epochs:
        return base_lr * t / warmup_epochs
    p = (t - warmup_epochs) / max(1e-8, total_epochs - warmup_epochs)
    return min_lr + (base_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * p))
