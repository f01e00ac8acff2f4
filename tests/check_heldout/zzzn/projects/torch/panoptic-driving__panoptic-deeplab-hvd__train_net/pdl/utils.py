import logging
import os

import torch
import horovod.torch as hvd


def setup_logger(out_dir):
    logger = logging.getLogger("pdl")
    logger.setLevel(logging.INFO if hvd.rank() == 0 else logging.WARNING)
    if not logger.handlers:
        logger.addHandler(logging.StreamHandler())
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        logger.addHandler(logging.FileHandler(os.path.join(out_dir, "log.txt")))
    return logger


def poly_lr(base_lr, it, max_iter, power):
    return base_lr * (1.0 - it / max_iter) ** power


class Checkpointer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.best = -1.0

    def save(self, name, model, optimizer, it, **extra):
        if hvd.rank() != 0:
            return
        torch.save(dict(model=model.state_dict(), optimizer=optimizer.state_dict(), iteration=it, **extra),
                   os.path.join(self.out_dir, name + ".pth"))

    def save_if_best(self, miou, model, optimizer, it):
        if miou > self.best:
            self.best = miou
            self.save("model_best", model, optimizer, it, miou=miou)
