import math

import torch
import torch.nn.functional as F


@torch.no_grad()
def mc_probs(model, x, T):
    model.train()  # keep dropout on
    return torch.stack([F.softmax(model(x), dim=-1) for _ in range(T)])  # T x N x C


def bald_scores(probs):
    mean = probs.mean(0)
    h = -(mean * torch.log(mean + 1e-10)).sum(-1)
    eh = -(probs * torch.log(probs + 1e-10)).sum(-1).mean(0)
    return h - eh


def max_entropy_scores(probs):
    mean = probs.mean(0)
    return -(mean * torch.log(mean + 1e-10)).sum(-1)


def score(name, model, x, T):
    if name == "random":
        return torch.rand(x.size(0))
    p = mc_probs(model, x, T)
    return bald_scores(p) if name == "bald" else max_entropy_scores(p)
