import os

import torch
import horovod.torch as hvd


def save(path, model, optimizer, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({"epoch": epoch, "model": model.state_dict(), "optim": optimizer.state_dict()}, tmp)
    os.replace(tmp, path)


def restore_and_sync(path, model, optimizer):
    """Rank 0 reads the checkpoint (if any); everything is then broadcast from rank 0."""
    start = 0
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optim"])
        start = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(start, root_rank=0, name="start_epoch")
