import os
import shutil

import torch


def save_checkpoint(state, is_best, ckpt_dir, filename="checkpoint.pth.tar"):
    os.makedirs(ckpt_dir, exist_ok=True)
    path = os.path.join(ckpt_dir, filename)
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(ckpt_dir, "model_best.pth.tar"))
    return path


def load_weights(model, path, device="cpu"):
    state = torch.load(path, map_location=device)
    model.load_state_dict(state["state_dict"])
    return state.get("epoch", -1)
