import math

import keras


def cosine_annealing(cfg):
    """Per-epoch cosine decay from cfg.lr to cfg.lr_min."""
    def lr_at(epoch, lr):
        return cfg.lr_min + 0.5 * (cfg.lr - cfg.lr_min) * (1 + math.cos(math.pi * epoch / cfg.epochs))
    return keras.callbacks.LearningRateScheduler(lr_at, verbose=0)
