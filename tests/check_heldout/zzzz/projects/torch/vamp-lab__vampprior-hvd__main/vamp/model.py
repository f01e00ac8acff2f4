import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def log_normal_diag(x, mean, logvar):
    return -0.5 * (logvar + (x - mean) ** 2 / logvar.exp() + math.log(2 * math.pi)).sum(-1)


class VampVAE(nn.Module):
    def __init__(self, z_dim=40, hidden=300, n_pseudo=500):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(784, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                     nn.Linear(hidden, 2 * z_dim))
        self.decoder = nn.Sequential(nn.Linear(z_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                     nn.Linear(hidden, 784))
        # VampPrior: mixture of variational posteriors at learned pseudo-inputs
        self.pseudo = nn.Parameter(torch.rand(n_pseudo, 784) * 0.1 + 0.45)
        self.n_pseudo = n_pseudo

    def q(self, x):
        mu, logvar = self.encoder(x).chunk(2, -1)
        return mu, logvar.clamp(-6, 2)

    def log_prior(self, z):
        pm, plv = self.q(torch.sigmoid(self.pseudo))
        lp = log_normal_diag(z.unsqueeze(-2), pm, plv)  # (..., K)
        return torch.logsumexp(lp, -1) - math.log(self.n_pseudo)

    def forward(self, x, beta=1.0):
        mu, logvar = self.q(x)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        rec = -F.binary_cross_entropy_with_logits(self.decoder(z), x, reduction="none").sum(-1)
        kl = log_normal_diag(z, mu, logvar) - self.log_prior(z)
        loss = -(rec - beta * kl)
        return loss.mean(), rec, kl

    @torch.no_grad()
    def iw_log_likelihood(self, x, k=500, chunk=100):
        """importance weighted log p(x) with k samples (Burda et al.)"""
        mu, logvar = self.q(x)
        ws = []
        for _ in range(k // chunk):
            eps = torch.randn(chunk, *mu.shape, device=x.device)
            z = mu + eps * (0.5 * logvar).exp()
            logits = self.decoder(z)
            lpx = -F.binary_cross_entropy_with_logits(logits, x.expand_as(logits), reduction="none").sum(-1)
            ws.append(lpx + self.log_prior(z) - log_normal_diag(z, mu, logvar))
        w = torch.cat(ws, 0)
        return torch.logsumexp(w, 0) - math.log(w.size(0))
