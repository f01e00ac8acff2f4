import os
import torch
import horovod.torch as hvd

from .dist import is_master


def save(ckpt_dir, model, optimizer, epoch):
    if not is_master():
        return
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch},
               os.path.join(ckpt_dir, "last.pth"))


def maybe_resume(ckpt_dir, model, optimizer):
    """Rank 0 loads the checkpoint; the caller broadcasts weights and optimizer state."""
    start_epoch = 0
    path = os.path.join(ckpt_dir, "last.pth")
    if is_master() and os.path.isfile(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    return hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
