import glob
import os

import torch


def is_master():
    return int(os.environ.get("RANK", "0")) == 0


def save_checkpoint(state, out_dir, epoch, keep=3):
    if not is_master():
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save(state, os.path.join(out_dir, f"epoch_{epoch:04d}.pt"))
    for old in sorted(glob.glob(os.path.join(out_dir, "epoch_*.pt")))[:-keep]:
        os.remove(old)


def latest_checkpoint(out_dir):
    files = sorted(glob.glob(os.path.join(out_dir, "epoch_*.pt")))
    return files[-1] if files else None
