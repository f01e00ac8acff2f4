import math


def warmup_cosine(optimizer, base_lr, warmup_epochs, total_epochs):
    def set_lr(epoch):
        if epoch < warmup_epochs:
            lr = base_lr * (epoch + 1) / warmup_epochs
        else:
            t = (epoch - warmup_epochs) / max(1, total_epochs - warmup_epochs)
            lr = 0.5 * base_lr * (1 + math.cos(math.pi * t))
        for g in optimizer.param_groups:
            g["lr"] = lr
        return lr
    return set_lr
