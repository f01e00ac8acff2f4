import os
import shutil

import torch


def save_checkpoint(state, out_dir, is_best=False, filename="last.pth"):
    """Write `state` to out_dir/filename and copy it to best.pth when is_best."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, filename)
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(out_dir, "best.pth"))
    return path


def load_checkpoint(path, backbone, head, optimizer=None):
    ckpt = torch.load(path, map_location="cpu")
    backbone.load_state_dict(ckpt["backbone"])
    head.load_state_dict(ckpt["head"])
    if optimizer is not None and "optimizer" in ckpt:
        optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt.get("epoch", 0), ckpt.get("best_acc", 0.0)
