import os

import torch
import horovod.torch as hvd


def is_main():
    return hvd.rank() == 0


def save_checkpoint(state, output_dir, name):
    if not is_main():
        return None
    os.makedirs(output_dir, exist_ok=True)
    path = os.path.join(output_dir, name)
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)
    return path


def global_sum(values, name):
    """Sum a list of python numbers over all workers."""
    t = torch.tensor(values, dtype=torch.float64)
    return hvd.allreduce(t, op=hvd.Sum, name=name).tolist()


def binary_auroc(scores, labels):
    """Rank-based AUROC (Mann-Whitney U) without sklearn."""
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
