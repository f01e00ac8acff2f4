import math


def warmup_step_lr(optimizer, base_lr, epoch, it, iters_per_epoch, warmup_epochs, steps, gamma=0.1):
    """Linear warmup for warmup_epochs, then step decay at the given epochs."""
    progress = epoch + it / iters_per_epoch
    if progress < warmup_epochs:
        lr = base_lr * (progress / warmup_epochs)
    else:
        lr = base_lr * gamma ** sum(progress >= s for s in steps)
    for group in optimizer.param_groups:
        group["lr"] = lr
    return lr


def cosine(base_lr, epoch, total):
    return 0.5 * base_lr * (1 + math.cos(math.pi * epoch / total))
