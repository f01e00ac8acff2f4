import torch


@torch.no_grad()
def masks_from_weights(model):
    """Recover the sparsity pattern of an already-pruned checkpoint (zeros stay zeros)."""
    return {n: (p != 0).float() for n, p in model.named_parameters() if p.dim() == 4}


@torch.no_grad()
def reapply(model, masks):
    for n, p in model.named_parameters():
        if n in masks:
            p.mul_(masks[n])
