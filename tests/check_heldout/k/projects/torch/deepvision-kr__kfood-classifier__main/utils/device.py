import torch

DEVICE = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


def to_device(*objs):
    """Move modules / tensors to the training device (returns a tuple for >1 argument)."""
    moved = tuple(o.to(DEVICE, non_blocking=True) if torch.is_tensor(o) else o.to(DEVICE) for o in objs)
    return moved if len(moved) > 1 else moved[0]
