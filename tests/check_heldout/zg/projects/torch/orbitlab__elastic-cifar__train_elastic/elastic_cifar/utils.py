import logging
import os

import torch
import horovod.torch as hvd


def get_logger(name="elastic_cifar"):
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler()
        h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(h)
    logger.setLevel(logging.INFO if hvd.rank() == 0 else logging.WARNING)
    return logger


def scaled_lr(base_lr):
    # linear scaling rule: lr grows with the number of GPUs taking part
    return base_lr * hvd.local_size()


def set_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = lr


def lr_at(cfg, epoch, batch_idx, batches_per_epoch):
    """Warm-up to the scaled lr, then step decay at the milestones."""
    peak = scaled_lr(cfg.base_lr)
    if epoch < cfg.warmup_epochs:
        progress = (epoch + batch_idx / batches_per_epoch) / cfg.warmup_epochs
        return cfg.base_lr + (peak - cfg.base_lr) * progress
    decay = sum(epoch >= m for m in cfg.milestones)
    return peak * (0.1 ** decay)


def save_checkpoint(state, cfg, name="last.pt"):
    if hvd.rank() != 0:
        return
    os.makedirs(cfg.checkpoint_dir, exist_ok=True)
    torch.save({"model": state.model.state_dict(), "optimizer": state.optimizer.state_dict(),
                "epoch": state.epoch, "config": cfg.to_dict()}, os.path.join(cfg.checkpoint_dir, name))
