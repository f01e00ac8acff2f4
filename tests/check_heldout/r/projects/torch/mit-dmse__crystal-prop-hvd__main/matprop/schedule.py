"""Hand-written lr schedule (Goyal et al. 2017): linear warm-up from the single-GPU lr to
base_lr * world_size over `warmup_epochs`, then step decay at the milestones."""


def lr_at(epoch, base_lr, world_size, warmup_epochs=5, milestones=(80, 110), gamma=0.1):
    peak = base_lr * world_size
    if epoch < warmup_epochs:
        return base_lr + (peak - base_lr) * epoch / warmup_epochs
    lr = base_lr
    for m in milestones:
        if epoch >= m:
            lr *= gamma
    return lr


def apply_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = lr
