import glob
import os

import torch


def save_checkpoint(path, model, optimizer, epoch, metrics, keep=3):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "metrics": metrics}, path)
    old = sorted(glob.glob(os.path.join(os.path.dirname(path), "epoch*.pt")))[:-keep]
    for f in old:
        os.remove(f)


def load_weights(path, model):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    return state
