def scaled_lr(base_lr, batch_size, base_batch=16):
    """Linear scaling rule (Goyal et al. 2017): the lr grows with the batch size."""
    return base_lr * batch_size / base_batch


def cosine(lr, epoch, epochs, warmup=3):
    import math
    if epoch < warmup:
        return lr * (epoch + 1) / warmup
    return 0.5 * lr * (1 + math.cos(math.pi * (epoch - warmup) / max(1, epochs - warmup)))
