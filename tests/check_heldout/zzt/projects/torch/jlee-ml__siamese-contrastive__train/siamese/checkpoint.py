import os

import torch
import horovod.torch as hvd


def save(path, model, optimizer, scaler, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "epoch": epoch}, path + ".tmp")
    os.replace(path + ".tmp", path)


def restore(path, model, optimizer, scaler):
    """Rank 0 reads the file, everyone receives its state. Returns the epoch to start from."""
    start = 0
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        start = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler.load_state_dict(hvd.broadcast_object(scaler.state_dict(), root_rank=0, name="scaler"))
    return hvd.broadcast_object(start, root_rank=0, name="start_epoch")
