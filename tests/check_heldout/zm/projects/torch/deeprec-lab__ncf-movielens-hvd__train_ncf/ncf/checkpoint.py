import os

import torch
import horovod.torch as hvd

FILE = "ncf_last.pt"


def save(ckpt_dir, epoch, model, optimizer):
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(ckpt_dir, FILE))


def restore(ckpt_dir, model, optimizer):
    """Rank 0 reads the checkpoint (if any); everyone ends up with rank 0's state."""
    epoch = 0
    path = os.path.join(ckpt_dir, FILE)
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(epoch, root_rank=0, name="start_epoch")
