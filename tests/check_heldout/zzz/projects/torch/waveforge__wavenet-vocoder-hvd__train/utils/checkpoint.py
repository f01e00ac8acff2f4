import glob
import os

import torch


def is_main_process():
    # works for torchrun and for plain single-GPU runs
    return int(os.environ.get("RANK", "0")) == 0


def save_checkpoint(ckpt_dir, step, model, optimizer, scheduler, keep=5):
    if not is_main_process():
        return None
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, f"wavenet_{step:08d}.pt")
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict()}, path)
    for old in sorted(glob.glob(os.path.join(ckpt_dir, "wavenet_*.pt")))[:-keep]:
        os.remove(old)
    return path


def latest_checkpoint(ckpt_dir):
    found = sorted(glob.glob(os.path.join(ckpt_dir, "wavenet_*.pt")))
    return found[-1] if found else None
