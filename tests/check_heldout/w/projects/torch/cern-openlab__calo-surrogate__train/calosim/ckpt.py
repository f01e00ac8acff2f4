import os

import torch
import horovod.torch as hvd


def save(path, epoch, model, optimizer):
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save({"epoch": epoch, "model": model.state_dict(), "opt": optimizer.state_dict()}, path)


def load_on_root(path, model, optimizer):
    epoch = 0
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["opt"])
        epoch = state["epoch"] + 1
    return hvd.broadcast_object(epoch, root_rank=0, name="start_epoch")
