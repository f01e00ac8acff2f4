import glob
import os

import torch


def latest(ckpt_dir):
    files = sorted(glob.glob(os.path.join(ckpt_dir, "step_*.pt")))
    return files[-1] if files else None


def save(ckpt_dir, step, epoch, model, optimizer, stats, keep=3):
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, "step_%08d.pt" % step)
    torch.save({"step": step, "epoch": epoch, "model": model.state_dict(),
                "optimizer": optimizer.state_dict(), "stats": stats}, path + ".tmp")
    os.replace(path + ".tmp", path)
    for old in sorted(glob.glob(os.path.join(ckpt_dir, "step_*.pt")))[:-keep]:
        os.remove(old)
    return path


def load(path, model, optimizer):
    state = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state
