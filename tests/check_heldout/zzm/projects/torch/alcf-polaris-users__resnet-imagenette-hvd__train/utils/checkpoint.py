import os

import torch
import horovod.torch as hvd


def save_checkpoint(model, optimizer, scaler, epoch, out_dir, keep_last=True):
    if hvd.rank() != 0:
        return None
    os.makedirs(out_dir, exist_ok=True)
    state = {
        "epoch": epoch,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scaler": scaler.state_dict(),
    }
    path = os.path.join(out_dir, f"ckpt_{epoch:03d}.pt")
    torch.save(state, path)
    if keep_last:
        torch.save(state, os.path.join(out_dir, "last.pt"))
    return path


def resume_from(path, model, optimizer, scaler):
    """Rank 0 reads the file; weights, optimizer state and the epoch go to everybody else."""
    start_epoch = 0
    if path and hvd.rank() == 0 and os.path.isfile(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        start_epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    # the loss scale must match too: gradients are averaged before they are unscaled
    scaler.load_state_dict(hvd.broadcast_object(scaler.state_dict(), root_rank=0, name="scaler"))
    return start_epoch
