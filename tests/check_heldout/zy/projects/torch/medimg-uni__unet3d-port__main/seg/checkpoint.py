import os
import shutil

import torch


def is_main_process():
    # RANK is exported by torch.distributed.launch / torchrun
    return int(os.environ.get("RANK", 0)) == 0


def save_checkpoint(state, out_dir, is_best=False):
    if not is_main_process():
        return
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "checkpoint.pth.tar")
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(out_dir, "model_best.pth.tar"))


def load_checkpoint(path, model, optimizer=None, scaler=None):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    if optimizer is not None and "optimizer" in ckpt:
        optimizer.load_state_dict(ckpt["optimizer"])
    if scaler is not None and "scaler" in ckpt:
        scaler.load_state_dict(ckpt["scaler"])
    return ckpt.get("epoch", -1) + 1, ckpt.get("best", 0.0)
