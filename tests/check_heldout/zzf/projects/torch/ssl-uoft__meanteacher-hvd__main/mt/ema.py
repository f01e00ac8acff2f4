import copy

import torch


def make_ema(model):
    ema = copy.deepcopy(model)
    for p in ema.parameters():
        p.requires_grad_(False)
    return ema


@torch.no_grad()
def update_ema(ema, model, decay, step):
    decay = min(1.0 - 1.0 / (step + 1), decay)
    for e, p in zip(ema.parameters(), model.parameters()):
        e.mul_(decay).add_(p.detach(), alpha=1.0 - decay)
    for e, b in zip(ema.buffers(), model.buffers()):
        e.copy_(b)
