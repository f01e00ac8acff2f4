import json
import os

import torch


def save_checkpoint(out_dir, model, optimizer, epoch, best_dice, is_best=False):
    os.makedirs(out_dir, exist_ok=True)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "epoch": epoch, "best_dice": best_dice}
    torch.save(state, os.path.join(out_dir, "latest.pt"))
    if is_best:
        torch.save(state, os.path.join(out_dir, "best.pt"))
        with open(os.path.join(out_dir, "best.json"), "w") as f:
            json.dump({"epoch": epoch, "dice": best_dice}, f)


def load_checkpoint(path, model, optimizer=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    return state["epoch"] + 1, state.get("best_dice", 0.0)
