import glob
import os

import torch

from . import dist


def save_checkpoint(model, optimizer, epoch, output_dir):
    if not dist.is_main_process():
        return None
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, f"model_{epoch:04d}.pth")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)
    return path


def latest_checkpoint(output_dir):
    files = sorted(glob.glob(os.path.join(output_dir, "model_*.pth")))
    return files[-1] if files else None
