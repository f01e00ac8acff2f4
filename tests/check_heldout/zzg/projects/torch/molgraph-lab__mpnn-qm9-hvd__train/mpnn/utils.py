import logging
import os
import sys

import torch
import horovod.torch as hvd


def get_logger(name, rank=0):
    log = logging.getLogger(name)
    log.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    if not log.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"[%(asctime)s r{rank}] %(message)s", "%H:%M:%S"))
        log.addHandler(h)
    return log


def save_checkpoint(path, model, optimizer, epoch, best):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "best": best}, path)


def load_checkpoint(path, model, optimizer):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1, state["best"]
