import os

import horovod.torch as hvd
import torch


def save_model(model, path, **meta):
    """Only the first worker writes; the others return at once."""
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), **meta}, path)
