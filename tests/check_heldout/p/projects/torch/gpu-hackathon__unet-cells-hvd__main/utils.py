import torch
import horovod.torch as hvd


def sync_state(model, optimizer):
    """Make all ranks start from the same state."""
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def metric_average(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()


def dice_score(logits, target, eps=1e-6):
    pred = (torch.sigmoid(logits) > 0.5).float()
    inter = (pred * target).sum()
    return ((2 * inter + eps) / (pred.sum() + target.sum() + eps)).item()
