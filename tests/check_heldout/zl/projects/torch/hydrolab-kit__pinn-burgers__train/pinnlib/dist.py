"""Thin wrappers around Horovod so the training scripts stay readable."""
import os

import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(max(1, os.cpu_count() // max(1, hvd.local_size())))


def device():
    return torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def average(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name).item()


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def save(model, optimizer, epoch, ckpt_dir):
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optim": optimizer.state_dict()},
               os.path.join(ckpt_dir, "last.pt"))


def maybe_resume(model, optimizer, ckpt_dir):
    """Rank 0 reads the last checkpoint; the epoch is shared with every rank."""
    start = 0
    path = os.path.join(ckpt_dir, "last.pt")
    if is_root() and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optim"])
        start = state["epoch"] + 1
    return hvd.broadcast_object(start, root_rank=0, name="resume_epoch")
