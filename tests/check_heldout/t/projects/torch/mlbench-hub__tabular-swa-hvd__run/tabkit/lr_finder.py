import copy
import math

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


def lr_range_test(model, dataset, batch_size, lr_min=1e-6, lr_max=1.0, steps=100):
    """Leslie Smith range test on a throw-away copy of the model; returns lr at steepest descent / 10."""
    net = copy.deepcopy(model)
    opt = torch.optim.Adam(net.parameters(), lr=lr_min)
    gamma = (lr_max / lr_min) ** (1.0 / steps)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True)
    lrs, losses, smooth, it = [], [], None, iter(loader)
    for _ in range(steps):
        try:
            x, y = next(it)
        except StopIteration:
            it = iter(loader)
            x, y = next(it)
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        smooth = loss.item() if smooth is None else 0.9 * smooth + 0.1 * loss.item()
        lrs.append(opt.param_groups[0]["lr"])
        losses.append(smooth)
        if not math.isfinite(smooth) or smooth > 4 * min(losses):
            break
        for g in opt.param_groups:
            g["lr"] *= gamma
    grads = [(losses[i + 1] - losses[i]) for i in range(len(losses) - 1)] or [0.0]
    return lrs[min(range(len(grads)), key=grads.__getitem__)] / 10.0
