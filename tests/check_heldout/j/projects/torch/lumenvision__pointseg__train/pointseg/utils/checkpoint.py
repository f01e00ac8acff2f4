import os
import shutil

import torch

from .dist import is_main_process


def save_checkpoint(state, work_dir, is_best=False, filename="last.pth"):
    """Write ``state`` atomically. Only rank 0 writes; other ranks return None."""
    if not is_main_process():
        return None
    os.makedirs(work_dir, exist_ok=True)
    path = os.path.join(work_dir, filename)
    tmp = path + ".part"
    torch.save(state, tmp)
    os.replace(tmp, path)
    if is_best:
        shutil.copyfile(path, os.path.join(work_dir, "best.pth"))
    return path


def load_checkpoint(path, model, optimizer=None, scheduler=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None and "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
    if scheduler is not None and "scheduler" in state:
        scheduler.load_state_dict(state["scheduler"])
    return state.get("epoch", -1) + 1, state.get("best_miou", 0.0)
