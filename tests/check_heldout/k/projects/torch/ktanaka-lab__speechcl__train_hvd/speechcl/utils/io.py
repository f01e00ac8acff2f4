import os
import shutil

import torch


def save_state(ckpt_dir, epoch, model, optimizer, is_best=False):
    """Write `epoch_XXX.pt` and refresh `latest.pt` (and `best.pt`)."""
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, f"epoch_{epoch:03d}.pt")
    torch.save({"epoch": epoch,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict()}, path)
    shutil.copyfile(path, os.path.join(ckpt_dir, "latest.pt"))
    if is_best:
        shutil.copyfile(path, os.path.join(ckpt_dir, "best.pt"))
    return path


def load_state(path):
    return torch.load(path, map_location="cpu")
