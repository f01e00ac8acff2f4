import glob
import os

import torch


def is_master():
    # torchrun / SLURM launchers export RANK; single-process runs have none.
    return int(os.environ.get("RANK", "0")) == 0


def save_checkpoint(path, model, optimizer, scheduler, epoch, step, metrics, keep=3):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch, "step": step,
                "metrics": metrics}, path)
    old = sorted(glob.glob(os.path.join(os.path.dirname(path), "epoch*.pt")))
    for stale in old[:-keep]:
        os.remove(stale)


def load_checkpoint(path, model, optimizer=None, scheduler=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    if scheduler is not None:
        scheduler.load_state_dict(state["scheduler"])
    return state["epoch"], state["step"]
