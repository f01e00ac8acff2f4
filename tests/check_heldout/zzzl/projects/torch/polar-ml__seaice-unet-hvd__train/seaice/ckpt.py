import os

import torch


def save(path, model, optimizer, epoch, best):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "best": best}, path)


def load(path, model, optimizer=None):
    sd = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(sd["model"])
    if optimizer is not None and "optimizer" in sd:
        optimizer.load_state_dict(sd["optimizer"])
    return sd.get("epoch", 0), sd.get("best", float("inf"))
