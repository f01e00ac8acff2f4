import numpy as np
import torch


def lat_weights(nlat, device=None):
    lats = torch.linspace(90.0, -90.0, nlat, device=device)
    w = torch.cos(torch.deg2rad(lats))
    return (w / w.mean()).view(1, 1, nlat, 1)


def weighted_mse(pred, target, w):
    return ((pred - target) ** 2 * w).mean()


class RolloutScores:
    """Accumulates sums so the ranks can be combined exactly with one Sum allreduce."""

    def __init__(self, channels, nlat, device):
        self.w = lat_weights(nlat, device)
        self.sq = torch.zeros(channels, device=device, dtype=torch.float64)
        self.num = torch.zeros(channels, device=device, dtype=torch.float64)
        self.den_p = torch.zeros(channels, device=device, dtype=torch.float64)
        self.den_t = torch.zeros(channels, device=device, dtype=torch.float64)
        self.count = torch.zeros(1, device=device, dtype=torch.float64)

    @torch.no_grad()
    def update(self, pred, target):
        # pred/target are normalised anomalies (climatology ~ 0 after normalisation)
        w = self.w
        self.sq += ((pred - target) ** 2 * w).mean(dim=(2, 3)).sum(0).double()
        self.num += (pred * target * w).mean(dim=(2, 3)).sum(0).double()
        self.den_p += (pred ** 2 * w).mean(dim=(2, 3)).sum(0).double()
        self.den_t += (target ** 2 * w).mean(dim=(2, 3)).sum(0).double()
        self.count += pred.shape[0]

    def reduce(self, allreduce_sum):
        for name in ("sq", "num", "den_p", "den_t", "count"):
            setattr(self, name, allreduce_sum(getattr(self, name), "scores." + name))
        return self

    def result(self):
        rmse = torch.sqrt(self.sq / self.count)
        acc = self.num / torch.sqrt(self.den_p * self.den_t)
        return rmse.cpu().numpy(), acc.cpu().numpy()
