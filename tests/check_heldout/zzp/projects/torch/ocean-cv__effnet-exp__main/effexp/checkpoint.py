import os

import torch
import horovod.torch as hvd


def save(path, **state):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def restore(path, model, optimizer, ema):
    """Rank 0 reads the file; everything is then sent to the other ranks."""
    meta = {"epoch": 0, "best_acc": 0.0}
    if hvd.rank() == 0 and path and os.path.isfile(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        ema.load_state_dict(state["ema"])
        meta = {"epoch": state["epoch"] + 1, "best_acc": state["best_acc"]}
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    hvd.broadcast_parameters(ema.state_dict(), root_rank=0)
    return hvd.broadcast_object(meta, root_rank=0, name="resume_meta")
