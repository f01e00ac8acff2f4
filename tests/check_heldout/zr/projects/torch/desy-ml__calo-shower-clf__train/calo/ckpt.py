import os

import torch
import horovod.torch as hvd


def ckpt_path(out_dir):
    return os.path.join(out_dir, "latest.pt")


def save(out_dir, model, optimizer, scheduler, epoch, best):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    tmp = ckpt_path(out_dir) + ".tmp"
    torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(),
                "sched": scheduler.state_dict(), "epoch": epoch, "best": best}, tmp)
    os.replace(tmp, ckpt_path(out_dir))


def try_resume(out_dir, model, optimizer, scheduler):
    """Rank 0 reads the checkpoint and sends it to the others; returns (start_epoch, best)."""
    state = None
    if hvd.rank() == 0 and os.path.exists(ckpt_path(out_dir)):
        state = torch.load(ckpt_path(out_dir), map_location="cpu")
    state = hvd.broadcast_object(state, root_rank=0, name="resume_state")
    if state is None:
        return 0, 0.0
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optim"])
    scheduler.load_state_dict(state["sched"])
    return state["epoch"] + 1, state["best"]
