"""Checkpoint I/O against the object-store mount (/mnt/objstore is a fuse mount of the bucket)."""
import os

import torch

from common.dist import is_chief


def checkpoint_path(base_uri, epoch):
    return os.path.join(base_uri, f"epoch-{epoch:04d}.pt")


def save_checkpoint(base_uri, epoch, model, optimizer):
    """Writes from the chief only; other ranks return immediately."""
    if not is_chief():
        return None
    os.makedirs(base_uri, exist_ok=True)
    path = checkpoint_path(base_uri, epoch)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    return path


def load_checkpoint(path, model, optimizer):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1
