import torch
import torch.nn as nn
import torch.nn.functional as F


class DrumVAE(nn.Module):
    """Convolutional VAE over log-mel frames of one-shot drum hits (1 x n_mels x frames)."""

    def __init__(self, n_mels=64, frames=64, z_dim=32):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(1, 32, 4, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(64, 128, 4, 2, 1), nn.ReLU(), nn.Flatten())
        flat = 128 * (n_mels // 8) * (frames // 8)
        self.mu = nn.Linear(flat, z_dim)
        self.logvar = nn.Linear(flat, z_dim)
        self.dec_in = nn.Linear(z_dim, flat)
        self.dec = nn.Sequential(
            nn.Unflatten(1, (128, n_mels // 8, frames // 8)),
            nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(32, 1, 4, 2, 1))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(self.dec_in(z)), mu, logvar


def elbo_terms(x, recon, mu, logvar):
    rec = F.mse_loss(recon, x, reduction="none").flatten(1).sum(1)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
    return rec.mean(), kl.mean()
