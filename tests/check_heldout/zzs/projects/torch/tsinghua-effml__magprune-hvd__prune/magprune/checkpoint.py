import os

import torch


def save_bundle(path, model, masks, optimizer=None, **meta):
    """Model weights and their masks go in one file, so they can never get out of sync."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    state = {"model": model.state_dict(), "masks": {k: v.cpu() for k, v in masks.items()}}
    if optimizer is not None:
        state["optimizer"] = optimizer.state_dict()
    state.update(meta)
    torch.save(state, path)


def load_bundle(path, model, device="cpu"):
    state = torch.load(path, map_location=device)
    model.load_state_dict(state["model"])
    return {k: v.to(device) for k, v in state["masks"].items()}, state
