import torch
import horovod.torch as hvd


def _lat_w(n, device):
    lat = torch.linspace(90, -90, n, device=device)
    w = torch.cos(torch.deg2rad(lat))
    return (n * w / w.sum()).view(1, 1, -1, 1)


def weighted_rmse_channels(pred, tgt):
    w = _lat_w(pred.shape[-2], pred.device)
    return torch.sqrt((w * (pred - tgt) ** 2).mean(dim=(-1, -2)))  # B, C


def weighted_acc_channels(pred, tgt):
    # inputs are normalised anomalies w.r.t. the time-mean climatology
    w = _lat_w(pred.shape[-2], pred.device)
    pred = pred - pred.mean(dim=(-1, -2), keepdim=True)
    tgt = tgt - tgt.mean(dim=(-1, -2), keepdim=True)
    return (w * pred * tgt).sum(dim=(-1, -2)) / torch.sqrt(
        (w * pred ** 2).sum(dim=(-1, -2)) * (w * tgt ** 2).sum(dim=(-1, -2)))


class ValidMeter:
    def __init__(self, n_ch, device):
        self.sums = torch.zeros(2 * n_ch + 2, device=device)
        self.n_ch = n_ch

    def update(self, loss, pred, tgt):
        b = pred.shape[0]
        self.sums[0] += loss.item() * b
        self.sums[1:1 + self.n_ch] += weighted_rmse_channels(pred, tgt).sum(0)
        self.sums[1 + self.n_ch:1 + 2 * self.n_ch] += weighted_acc_channels(pred, tgt).sum(0)
        self.sums[-1] += b

    def compute(self):
        s = hvd.allreduce(self.sums, op=hvd.Sum, name="valid_sums")
        n = s[-1]
        return {"valid_loss": (s[0] / n).item(),
                "rmse": (s[1:1 + self.n_ch] / n).cpu(),
                "acc": (s[1 + self.n_ch:1 + 2 * self.n_ch] / n).cpu()}
