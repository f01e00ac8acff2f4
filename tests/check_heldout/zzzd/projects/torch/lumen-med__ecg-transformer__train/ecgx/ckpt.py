import os

import torch

from .dist import is_main_process


def save(path, model, optimizer, epoch, best):
    if not is_main_process():
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "best": best}, tmp)
    os.replace(tmp, path)
