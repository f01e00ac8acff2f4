import torch


def pinball_loss(pred, target, quantiles, reduction="mean"):
    """pred: (B, H, Q), target: (B, H)."""
    q = torch.tensor(quantiles, dtype=pred.dtype, device=pred.device).view(1, 1, -1)
    diff = target.unsqueeze(-1) - pred
    loss = torch.maximum(q * diff, (q - 1) * diff)
    if reduction == "sum":
        return loss.sum()
    return loss.mean()


def coverage(pred, target, lo=0, hi=-1):
    inside = (target >= pred[..., lo]) & (target <= pred[..., hi])
    return inside.float().sum()
