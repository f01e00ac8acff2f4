import os
import tempfile

import torch
import horovod.torch as hvd


def save_checkpoint(path, model, optimizer, epoch, metrics=None):
    """Atomic save from rank 0. Other ranks do nothing."""
    if hvd.rank() != 0:
        return
    d = os.path.dirname(path) or "."
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
    os.close(fd)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "metrics": metrics or {}}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"] + 1
