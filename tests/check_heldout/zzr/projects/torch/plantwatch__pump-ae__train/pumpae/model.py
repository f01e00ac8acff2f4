import torch
from torch import nn


class ConvAE(nn.Module):
    def __init__(self, channels=3, latent_dim=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(channels, 16, 7, stride=2, padding=3), nn.ReLU(),
            nn.Conv1d(16, 32, 5, stride=2, padding=2), nn.ReLU(),
            nn.Conv1d(32, latent_dim, 3, stride=2, padding=1),
        )
        self.decoder = nn.Sequential(
            nn.ConvTranspose1d(latent_dim, 32, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose1d(32, 16, 4, stride=2, padding=1), nn.ReLU(),
            nn.ConvTranspose1d(16, channels, 4, stride=2, padding=1),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


def recon_error(model, x):
    with torch.no_grad():
        return ((model(x) - x) ** 2).mean(dim=(1, 2))
