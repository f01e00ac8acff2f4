import os
import shutil

import torch


def save_checkpoint(state, out_dir, is_best):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "last.pth.tar")
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(out_dir, "best.pth.tar"))


def load_checkpoint(path, model, optimizer):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"], state.get("best", 0.0)
