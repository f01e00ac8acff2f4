import os

import torch
import horovod.torch as hvd


def save_checkpoint(state, path):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)


def try_resume(path, model, optimizer):
    """Loads on rank 0 only; the caller broadcasts the result."""
    if hvd.rank() != 0 or not os.path.exists(path):
        return 0
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1
