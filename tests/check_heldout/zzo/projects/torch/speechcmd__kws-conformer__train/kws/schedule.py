import math


def warmup_cosine(optimizer, base_lr, warmup_steps, total_steps):
    def set_lr(step):
        if step < warmup_steps:
            lr = base_lr * (step + 1) / warmup_steps
        else:
            t = (step - warmup_steps) / max(1, total_steps - warmup_steps)
            lr = 0.5 * base_lr * (1 + math.cos(math.pi * t))
        for g in optimizer.param_groups:
            g["lr"] = lr
        return lr
    return set_lr
