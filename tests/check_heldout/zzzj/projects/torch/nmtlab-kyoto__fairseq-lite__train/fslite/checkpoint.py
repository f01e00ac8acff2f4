import collections
import os

import torch


def save_checkpoint(path, model, optimizer, schedule, epoch):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "schedule": schedule.state_dict(), "epoch": epoch}, path)


def average_checkpoints(paths):
    """Element-wise mean of the model weights of several checkpoints (last-N averaging)."""
    acc = collections.OrderedDict()
    for p in paths:
        sd = torch.load(p, map_location="cpu")["model"]
        for k, v in sd.items():
            acc[k] = acc.get(k, 0) + v.float() / len(paths)
    return acc
