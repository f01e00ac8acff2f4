import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class UNetSmall(nn.Module):
    def __init__(self, in_ch, out_ch=1, base=32):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv2d(in_ch, base, 3, padding=1), nn.ReLU(), nn.Conv2d(base, base, 3, padding=1), nn.ReLU())
        self.e2 = nn.Sequential(nn.Conv2d(base, 2 * base, 3, padding=1), nn.ReLU())
        self.d1 = nn.Sequential(nn.Conv2d(3 * base, base, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(base, out_ch, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool2d(a, 2))
        b = F.interpolate(b, size=a.shape[-2:], mode="nearest")
        return torch.sigmoid(self.head(self.d1(torch.cat([a, b], 1))))


class Trainer:
    """Autoregressive: the model sees `history` SIC days + that day's forcing and predicts the
    next day; the prediction is fed back for `lead` steps."""

    def __init__(self, model, optimizer, device, log_every=50):
        self.model = model
        self.opt = optimizer
        self.device = device
        self.log_every = log_every

    def _rollout(self, sic, frc):
        preds = []
        hist = sic
        for k in range(frc.shape[1]):
            x = torch.cat([hist, frc[:, k]], dim=1)
            p = self.model(x)
            preds.append(p)
            hist = torch.cat([hist[:, 1:], p], dim=1)
        return torch.cat(preds, dim=1)

    def train_epoch(self, loader, epoch, log=print):
        self.model.train()
        t0 = time.time()
        for i, (sic, frc, tgt) in enumerate(loader):
            sic, frc, tgt = sic.to(self.device), frc.to(self.device), tgt.to(self.device)
            self.opt.zero_grad()
            pred = self._rollout(sic, frc)
            loss = F.mse_loss(pred, tgt)
            loss.backward()
            self.opt.step()
            if i % self.log_every == 0:
                log("ep %d it %d loss %.5f (%.1fs)" % (epoch, i, loss.item(), time.time() - t0))

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        tot, n = 0.0, 0
        ice_err, ice_n = 0.0, 0
        for sic, frc, tgt in loader:
            sic, frc, tgt = sic.to(self.device), frc.to(self.device), tgt.to(self.device)
            pred = self._rollout(sic, frc)
            tot += F.mse_loss(pred, tgt, reduction="sum").item()
            n += tgt.numel()
            # integrated ice-edge error proxy: cells where 15% contour disagrees
            ice_err += ((pred > 0.15) != (tgt > 0.15)).float().sum().item()
            ice_n += tgt.numel()
        return {"rmse": (tot / max(n, 1)) ** 0.5, "iiee_frac": ice_err / max(ice_n, 1)}
