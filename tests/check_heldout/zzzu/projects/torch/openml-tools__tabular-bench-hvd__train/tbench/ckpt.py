import os

import torch
import horovod.torch as hvd


def save_checkpoint(state, out_dir, name="last.pt"):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, name + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, os.path.join(out_dir, name))


def load_checkpoint(path, model, optimizer=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None and "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
    return state.get("epoch", 0) + 1
