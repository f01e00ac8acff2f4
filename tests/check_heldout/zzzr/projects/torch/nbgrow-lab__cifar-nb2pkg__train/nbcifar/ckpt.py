import os
import torch
import horovod.torch as hvd


def save_checkpoint(path, model, optimizer, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(), "epoch": epoch}, path)


def try_resume(path, model, optimizer):
    start = 0
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["opt"])
        start = state["epoch"] + 1
    return hvd.broadcast_object(start, root_rank=0, name="resume_epoch")
