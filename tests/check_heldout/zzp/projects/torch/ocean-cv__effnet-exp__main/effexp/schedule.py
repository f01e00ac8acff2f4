import math


def sgdr(epoch, base_lr, cycle=10, mult=2, floor=1e-5, warmup=3):
    """Cosine annealing with warm restarts (Loshchilov & Hutter), per-epoch, with linear warmup."""
    if epoch < warmup:
        return base_lr * (epoch + 1) / warmup
    e, length = epoch - warmup, cycle
    while e >= length:
        e -= length
        length *= mult
    return floor + 0.5 * (base_lr - floor) * (1 + math.cos(math.pi * e / length))
