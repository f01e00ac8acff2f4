import os

import torch
import horovod.torch as hvd


def save_checkpoint(path, model, optimizer, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
    print("=> saved", path)


def load_checkpoint(path, model, optimizer):
    """every worker reads the same file; returns the epoch to resume from"""
    if not os.path.exists(path):
        return 0
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1
