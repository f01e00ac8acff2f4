import math


def warmup_cosine(step, base_lr, warmup, total, floor=0.1):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    t = min(1.0, (step - warmup) / max(1, total - warmup))
    return base_lr * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * t)))
