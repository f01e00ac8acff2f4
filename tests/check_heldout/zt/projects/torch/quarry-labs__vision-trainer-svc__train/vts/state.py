import glob
import os

import torch
import horovod.torch as hvd


def latest_checkpoint(work_dir):
    found = sorted(glob.glob(os.path.join(work_dir, "epoch_*.pth")))
    return found[-1] if found else None


def sync_and_resume(model, optimizer, work_dir, resume="auto"):
    """Make every worker start from the same weights, then pick up the last run."""
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    path = latest_checkpoint(work_dir) if resume == "auto" else (None if resume == "none" else resume)
    start_epoch = 0
    if path and hvd.rank() == 0:
        ckpt = torch.load(path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
    return hvd.broadcast_object(start_epoch, root_rank=0)
