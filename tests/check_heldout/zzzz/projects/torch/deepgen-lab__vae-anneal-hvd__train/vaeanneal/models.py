import torch
import torch.nn as nn
import torch.nn.functional as F


class MLPVAE(nn.Module):
    def __init__(self, z_dim=32, hidden=512, x_dim=784):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(x_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, z_dim)
        self.logvar = nn.Linear(hidden, z_dim)
        self.dec = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, x_dim))
        self.z_dim = z_dim

    def forward(self, x):
        h = self.enc(x.flatten(1))
        mu, logvar = self.mu(h), self.logvar(h).clamp(-8, 8)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        logits = self.dec(z)
        rec = F.binary_cross_entropy_with_logits(logits, x.flatten(1), reduction="none").sum(1)
        kl = 0.5 * (mu.pow(2) + logvar.exp() - 1.0 - logvar).sum(1)
        return rec, kl

    @torch.no_grad()
    def sample(self, n, device):
        z = torch.randn(n, self.z_dim, device=device)
        return torch.sigmoid(self.dec(z)).view(n, 1, 28, 28)


def beta_schedule(step, args):
    if args.anneal == "none":
        return args.beta_max
    if args.anneal == "linear":
        return args.beta_max * min(1.0, step / float(max(1, args.warmup_steps)))
    # cyclical (Fu et al. 2019): ramp up during first half of every cycle
    period = max(1, args.warmup_steps // args.n_cycles)
    tau = (step % period) / float(period)
    return args.beta_max * min(1.0, 2.0 * tau)
