import os

import torch
import horovod.torch as hvd


def save_checkpoint(out_dir, name, model, optimizer, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, os.path.join(out_dir, name))


def load_checkpoint(path, model, optimizer):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1
