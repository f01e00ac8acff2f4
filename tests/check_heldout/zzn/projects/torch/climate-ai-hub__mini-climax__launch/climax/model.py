import torch
import torch.nn as nn


class TinyClimaX(nn.Module):
    """Patch-token transformer mapping the state at t to the state at t + lead (all variables)."""

    def __init__(self, n_vars, img=(32, 64), patch=4, dim=256, depth=6, heads=8):
        super().__init__()
        self.patch, self.img = patch, img
        n_tok = (img[0] // patch) * (img[1] // patch)
        self.embed = nn.Conv2d(n_vars, dim, patch, stride=patch)
        self.pos = nn.Parameter(torch.zeros(1, n_tok, dim))
        self.lead_embed = nn.Linear(1, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth)
        self.head = nn.Linear(dim, n_vars * patch * patch)
        nn.init.trunc_normal_(self.pos, std=0.02)

    def forward(self, x, lead_hours):
        b, c, h, w = x.shape
        tok = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        tok = tok + self.lead_embed(lead_hours.view(-1, 1) / 100.0).unsqueeze(1)
        tok = self.head(self.blocks(tok))
        p = self.patch
        tok = tok.view(b, h // p, w // p, c, p, p).permute(0, 3, 1, 4, 2, 5)
        return x + tok.reshape(b, c, h, w)
