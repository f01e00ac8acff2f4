import math


def warmup_cosine(step, total_steps, peak_lr, warmup_steps):
    if step < warmup_steps:
        return peak_lr * (step + 1) / warmup_steps
    progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
    return 0.5 * peak_lr * (1.0 + math.cos(math.pi * min(1.0, progress)))
