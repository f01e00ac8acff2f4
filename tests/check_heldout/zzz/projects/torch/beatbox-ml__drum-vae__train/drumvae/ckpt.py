import os

import torch


def save(path, model, optimizer, epoch):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, tmp)
    os.replace(tmp, path)


def load_weights(path, model, strict=False):
    state = torch.load(path, map_location="cpu")
    missing, unexpected = model.load_state_dict(state.get("model", state), strict=strict)
    return missing, unexpected
