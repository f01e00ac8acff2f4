import os

import torch

from .distributed import is_main


def save(cfg, model, optimizer, epoch, best):
    if not is_main():
        return
    os.makedirs(cfg.ckpt_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch,
                "best": best}, os.path.join(cfg.ckpt_dir, "last.pt"))


def maybe_resume(cfg, model, optimizer):
    path = os.path.join(cfg.ckpt_dir, "last.pt")
    if not (cfg.resume and os.path.exists(path)):
        return 0, float("inf")
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1, state["best"]
