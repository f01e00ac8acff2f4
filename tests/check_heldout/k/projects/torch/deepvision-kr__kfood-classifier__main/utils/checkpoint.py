import os

import torch


def save_checkpoint(state, save_dir, is_best, is_master):
    if not is_master:
        return
    os.makedirs(save_dir, exist_ok=True)
    torch.save(state, os.path.join(save_dir, "last.pth"))
    if is_best:
        torch.save(state["model"], os.path.join(save_dir, "best_model.pth"))
