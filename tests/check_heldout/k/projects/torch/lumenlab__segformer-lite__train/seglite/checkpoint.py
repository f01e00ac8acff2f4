"""Checkpoint I/O. Only the first process writes; every process may read."""
import os
import tempfile

import torch

from .dist import hvd


def save_checkpoint(state, out_dir, name="last.pth"):
    if hvd.rank() != 0:
        return None
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out_dir, suffix=".tmp")
    os.close(fd)
    torch.save(state, tmp)
    path = os.path.join(out_dir, name)
    os.replace(tmp, path)
    return path


def load_checkpoint(path, map_location="cpu"):
    return torch.load(path, map_location=map_location)
