import os

import torch
import horovod.torch as hvd


def restore_and_sync(model, optimizer, path):
    """Rank 0 reads the checkpoint if there is one; everyone then takes rank 0's state."""
    epoch = 0
    if hvd.rank() == 0 and os.path.isfile(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        epoch = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(epoch, root_rank=0, name="resume_epoch")


def save_checkpoint(model, optimizer, epoch, path):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
