import torch
from torch import nn


class SpectrogramTransformer(nn.Module):
    """Patch the time axis into (n_mels x patch) tokens, add a CLS token, encode."""

    def __init__(self, n_mels, n_tags, crop_frames, patch=16, dim=192, depth=4, heads=4):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(n_mels * patch, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, crop_frames // patch + 1, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 4, 0.1, batch_first=True, activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_tags)

    def forward(self, mel):
        b, f, t = mel.shape
        tokens = mel.unfold(2, self.patch, self.patch).permute(0, 2, 1, 3).reshape(b, t // self.patch, -1)
        x = torch.cat([self.cls.expand(b, -1, -1), self.embed(tokens)], 1) + self.pos
        return self.head(self.norm(self.encoder(x)[:, 0]))
