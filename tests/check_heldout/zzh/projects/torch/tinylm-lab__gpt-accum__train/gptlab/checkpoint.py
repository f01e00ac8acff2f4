import glob
import os
import re

import torch
import horovod.torch as hvd

_CKPT_RE = re.compile(r"ckpt_(\d+)\.pt$")


def latest_checkpoint(out_dir):
    found = []
    for path in glob.glob(os.path.join(out_dir, "ckpt_*.pt")):
        m = _CKPT_RE.search(path)
        if m:
            found.append((int(m.group(1)), path))
    return max(found)[1] if found else None


def save_checkpoint(out_dir, step, model, optimizer, keep=3):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"ckpt_{step:07d}.pt")
    torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, path + ".tmp")
    os.replace(path + ".tmp", path)
    for old in sorted(glob.glob(os.path.join(out_dir, "ckpt_*.pt")))[:-keep]:
        os.remove(old)


def restore_latest(out_dir, model, optimizer):
    """Rank 0 loads the newest checkpoint (if any); every rank gets the step back.
    The caller broadcasts parameters and optimizer state afterwards."""
    step = 0
    if hvd.rank() == 0:
        path = latest_checkpoint(out_dir)
        if path is not None:
            state = torch.load(path, map_location="cpu")
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            step = state["step"]
    return hvd.broadcast_object(step, root_rank=0, name="resume_step")
