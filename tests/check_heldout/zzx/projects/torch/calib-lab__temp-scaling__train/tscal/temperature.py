import torch
import torch.nn as nn
import torch.nn.functional as F


class TemperatureScaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_t = nn.Parameter(torch.zeros(1))

    @property
    def temperature(self):
        return self.log_t.exp().item()

    def forward(self, logits):
        return logits / self.log_t.exp()

    def fit(self, logits, labels, max_iter=100):
        opt = torch.optim.LBFGS([self.log_t], lr=0.05, max_iter=max_iter)

        def closure():
            opt.zero_grad()
            loss = F.cross_entropy(self(logits), labels)
            loss.backward()
            return loss

        opt.step(closure)
        return self


def ece(logits, labels, n_bins=15):
    probs = logits.softmax(-1)
    conf, pred = probs.max(-1)
    acc = pred.eq(labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    out = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            out += m.float().mean() * (conf[m].mean() - acc[m].mean()).abs()
    return out.item()
