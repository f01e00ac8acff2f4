import torch


class LpLoss:
    """Relative Lp error per sample; summed or averaged over the batch."""

    def __init__(self, p=2, size_average=True):
        self.p = p
        self.size_average = size_average

    def __call__(self, pred, target):
        b = pred.shape[0]
        diff = torch.norm(pred.reshape(b, -1) - target.reshape(b, -1), self.p, dim=1)
        ref = torch.norm(target.reshape(b, -1), self.p, dim=1)
        rel = diff / ref
        return rel.mean() if self.size_average else rel.sum()
