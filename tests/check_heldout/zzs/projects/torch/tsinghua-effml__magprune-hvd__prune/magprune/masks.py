"""Global magnitude pruning with persistent binary masks."""
import torch


def prunable(model):
    return {n: p for n, p in model.named_parameters() if p.dim() > 1}


@torch.no_grad()
def global_magnitude_masks(model, amount, old_masks=None):
    params = prunable(model)
    scores = torch.cat([p.detach().abs().flatten() for p in params.values()])
    k = int(amount * scores.numel())
    if k == 0:
        return {n: torch.ones_like(p) for n, p in params.items()}
    threshold = torch.kthvalue(scores.cpu(), k).values.item()
    masks = {}
    for n, p in params.items():
        m = (p.abs() > threshold).float()
        if old_masks is not None:
            m *= old_masks[n]
        masks[n] = m
    return masks


@torch.no_grad()
def apply_masks(model, masks):
    for n, p in model.named_parameters():
        if n in masks:
            p.mul_(masks[n])


def sparsity(masks):
    total = sum(m.numel() for m in masks.values())
    zeros = sum((m == 0).sum().item() for m in masks.values())
    return zeros / max(total, 1)
