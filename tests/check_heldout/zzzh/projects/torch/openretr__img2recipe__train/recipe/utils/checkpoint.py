import os

import torch
import horovod.torch as hvd


def save_checkpoint(state, ckpt_dir, is_best=False):
    if hvd.rank() != 0:
        return
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save(state, os.path.join(ckpt_dir, "last.pth.tar"))
    if is_best:
        torch.save(state, os.path.join(ckpt_dir, "best.pth.tar"))


def restore_or_init(model, optimizer, ckpt_dir):
    """Returns the epoch to start from. Rank 0 reads the checkpoint and sends it to the others."""
    path = os.path.join(ckpt_dir, "last.pth.tar")
    if not os.path.exists(path):
        return 0
    epoch = 0
    if hvd.rank() == 0:
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(epoch, root_rank=0)
