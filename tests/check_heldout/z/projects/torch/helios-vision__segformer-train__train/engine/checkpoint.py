import os

import torch

from .dist import is_main_process

_best = {"miou": -1.0}


def save_checkpoint(out_dir, epoch, model, optimizer, miou):
    if not is_main_process():
        return
    os.makedirs(out_dir, exist_ok=True)
    state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "miou": miou}
    torch.save(state, os.path.join(out_dir, "last.pth"))
    if miou > _best["miou"]:
        _best["miou"] = miou
        torch.save(state, os.path.join(out_dir, "best.pth"))
