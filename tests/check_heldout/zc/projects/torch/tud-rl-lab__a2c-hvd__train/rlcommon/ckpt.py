import os

import torch

from .dist import is_root


def save_checkpoint(out_dir, model, optimizer, update):
    if not is_root():
        return None
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"a2c_{update:06d}.pt")
    torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "update": update}, path)
    return path
