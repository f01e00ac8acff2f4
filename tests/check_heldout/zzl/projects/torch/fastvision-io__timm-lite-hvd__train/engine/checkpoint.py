import os

import torch
import horovod.torch as hvd


def save(path, model, optimizer, scaler, epoch, best_acc):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scaler": scaler.state_dict(), "epoch": epoch, "best_acc": best_acc},
               path + ".tmp")
    os.replace(path + ".tmp", path)


def resume(path, model, optimizer, scaler):
    """Rank 0 reads the file; everybody ends up with its weights and counters."""
    meta = {"epoch": 0, "best_acc": 0.0}
    if hvd.rank() == 0 and path and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        meta = {"epoch": state["epoch"] + 1, "best_acc": state["best_acc"]}
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler.load_state_dict(hvd.broadcast_object(scaler.state_dict(), root_rank=0))
    return hvd.broadcast_object(meta, root_rank=0)
