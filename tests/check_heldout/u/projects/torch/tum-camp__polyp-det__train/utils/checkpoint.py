import os

import torch

from .comm import is_main_process


def save_checkpoint(state, out_dir, name="last.pth"):
    if not is_main_process():
        return
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, name + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, os.path.join(out_dir, name))


def load_checkpoint(path, model, optimizer=None):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    if optimizer is not None and "optimizer" in ckpt:
        optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt.get("epoch", -1) + 1
