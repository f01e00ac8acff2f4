import torch
import torch.nn.functional as F


def soft_dice_loss(logits, target, eps=1e-5):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, probs.shape[1]).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    inter = (probs * onehot).sum(dims)
    denom = probs.sum(dims) + onehot.sum(dims)
    return 1 - ((2 * inter + eps) / (denom + eps))[1:].mean()


def dice_ce_loss(logits, target):
    return F.cross_entropy(logits, target) + soft_dice_loss(logits, target)


@torch.no_grad()
def dice_per_class(pred, target, n_classes):
    scores = []
    for c in range(1, n_classes):
        p, t = pred == c, target == c
        denom = p.sum() + t.sum()
        scores.append(1.0 if denom == 0 else (2 * (p & t).sum() / denom).item())
    return scores
