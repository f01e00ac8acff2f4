import os

import torch
import horovod.torch as hvd


def save_checkpoint(state, out_dir, name="last.pt"):
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        torch.save(state, os.path.join(out_dir, name))


def maybe_resume(model, optimizer, scaler, out_dir):
    """Auto-resume after preemption: returns the epoch to start from."""
    path = os.path.join(out_dir, "last.pt")
    if hvd.rank() == 0 and os.path.exists(path):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scaler.load_state_dict(state["scaler"])
        print(f"resumed from {path} @ epoch {state['epoch']}")
        return state["epoch"] + 1, state["best_acc"]
    return 0, 0.0
