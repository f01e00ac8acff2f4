import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm


class Generator(nn.Module):
    """z -> 2-channel range image (range, intensity) of size 64 x 1024."""

    def __init__(self, z_dim=128, ch=64):
        super().__init__()
        self.fc = nn.Linear(z_dim, ch * 8 * 4 * 64)
        self.ch = ch

        def up(cin, cout):
            return nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(cin, cout, 3, padding=1),
                                 nn.BatchNorm2d(cout), nn.ReLU(True))

        self.body = nn.Sequential(up(ch * 8, ch * 4), up(ch * 4, ch * 2), up(ch * 2, ch), up(ch, ch))
        self.out = nn.Sequential(nn.Conv2d(ch, 2, 3, padding=1), nn.Tanh())

    def forward(self, z):
        x = self.fc(z).view(z.size(0), self.ch * 8, 4, 64)
        return self.out(self.body(x))


class Discriminator(nn.Module):
    def __init__(self, ch=64):
        super().__init__()

        def down(cin, cout):
            return nn.Sequential(spectral_norm(nn.Conv2d(cin, cout, 4, 2, 1)), nn.LeakyReLU(0.2, True))

        self.body = nn.Sequential(down(2, ch), down(ch, ch * 2), down(ch * 2, ch * 4), down(ch * 4, ch * 8))
        self.head = spectral_norm(nn.Linear(ch * 8, 1))

    def forward(self, x):
        h = self.body(x)
        return self.head(h.mean(dim=(2, 3))).squeeze(1)


def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.normal_(m.weight, 0.0, 0.02)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def requires_grad(model, flag):
    for p in model.parameters():
        p.requires_grad_(flag)


@torch.no_grad()
def sample(G, n, z_dim, device):
    return G(torch.randn(n, z_dim, device=device))
