import os
import torch
import horovod.torch as hvd


def save(path, model, optimizer, epoch, step):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "step": step}, path + ".tmp")
    os.replace(path + ".tmp", path)


def load(path, model, optimizer):
    """every worker reads the file (shared fs); returns start epoch, step"""
    if not path or not os.path.exists(path):
        return 0, 0
    ck = torch.load(path, map_location="cpu")
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["optimizer"])
    return ck["epoch"] + 1, ck["step"]
