import os
import glob
import torch


def save_checkpoint(ckpt_dir, epoch, model, optimizer, ema_state=None, metrics=None, keep=3):
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, f"ckpt_{epoch:04d}.pt")
    torch.save({"epoch": epoch,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "ema": ema_state,
                "metrics": metrics}, path)
    # rotate old checkpoints
    old = sorted(glob.glob(os.path.join(ckpt_dir, "ckpt_*.pt")))[:-keep]
    for p in old:
        os.remove(p)
    return path


def load_checkpoint(path, model, optimizer=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    return state["epoch"]
