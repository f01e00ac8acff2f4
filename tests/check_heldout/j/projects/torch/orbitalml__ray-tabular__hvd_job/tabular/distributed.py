import os

import torch


def global_mean(hvd, value, name):
    """Mean over workers of a per-worker mean (the dev shards have equal length)."""
    return hvd.allreduce(torch.tensor(float(value)), op=hvd.Average, name=name).item()


def export_rank_zero(hvd, model, path):
    if hvd.rank() != 0:
        return None
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, path)
    return path
