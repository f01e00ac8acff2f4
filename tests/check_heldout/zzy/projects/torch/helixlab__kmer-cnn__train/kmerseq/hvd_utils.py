import numpy as np
import torch
import horovod.torch as hvd

DEVICE = torch.device("cpu")


def setup(threads=2):
    """hvd.init() + one GPU per process."""
    global DEVICE
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        DEVICE = torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(threads)
    return hvd.rank(), hvd.size()


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def auroc(y_true, y_score):
    """Mann-Whitney AUROC (ties broken by order, fine for continuous scores)."""
    y_true = np.asarray(y_true).astype(bool)
    order = np.argsort(y_score, kind="mergesort")
    ranks = np.empty(len(order), dtype=np.float64)
    ranks[order] = np.arange(1, len(order) + 1)
    n_pos, n_neg = y_true.sum(), (~y_true).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[y_true].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
