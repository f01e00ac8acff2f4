import os

import horovod.torch as hvd
import torch


def save_checkpoint(out_dir, step, model, optimizer, scheduler):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, "ckpt.pt.tmp")
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict()}, tmp)
    os.replace(tmp, os.path.join(out_dir, "ckpt.pt"))


def restore_and_sync(out_dir, model, optimizer, scheduler):
    """Rank 0 reads the checkpoint if there is one, then every rank takes rank 0's state."""
    step = 0
    path = os.path.join(out_dir, "ckpt.pt")
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step = state["step"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    step = hvd.broadcast_object(step, root_rank=0, name="resume_step")
    scheduler.last_epoch = step
    return step
