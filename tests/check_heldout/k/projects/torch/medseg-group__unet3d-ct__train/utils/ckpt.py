import glob
import os

import torch


def find_latest(ckpt_dir):
    paths = sorted(glob.glob(os.path.join(ckpt_dir, "epoch_*.pth")))
    return paths[-1] if paths else None


def save_checkpoint(ckpt_dir, epoch, model, optimizer, scheduler, keep=3):
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, f"epoch_{epoch:04d}.pth")
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict()}, path)
    for old in sorted(glob.glob(os.path.join(ckpt_dir, "epoch_*.pth")))[:-keep]:
        os.remove(old)
    return path
