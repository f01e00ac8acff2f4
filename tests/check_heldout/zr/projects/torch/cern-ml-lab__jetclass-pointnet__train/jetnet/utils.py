import logging
import os
import sys
import time

import torch


def get_logger(name="jetnet", rank=0):
    log = logging.getLogger(name)
    if not log.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"[%(asctime)s r{rank}] %(message)s", "%H:%M:%S"))
        log.addHandler(h)
    log.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    return log


class Timer:
    def __init__(self):
        self.t0 = time.time()

    def lap(self):
        t, self.t0 = time.time() - self.t0, time.time()
        return t


def save_checkpoint(path, model, optimizer, scheduler, epoch, best_auc):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch, "best_auc": best_auc}, path)
