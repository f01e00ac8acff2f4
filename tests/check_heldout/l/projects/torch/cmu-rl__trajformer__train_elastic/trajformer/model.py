import torch
import torch.nn as nn


class TrajFormer(nn.Module):
    """Encodes 8 observed (dx, dy) steps, predicts K candidate 12-step futures."""

    def __init__(self, obs_len=8, pred_len=12, d_model=128, heads=4, layers=3, modes=6):
        super().__init__()
        self.pred_len = pred_len
        self.modes = modes
        self.embed = nn.Linear(2, d_model)
        self.pos = nn.Parameter(torch.randn(1, obs_len, d_model) * 0.02)
        enc = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, 0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, layers)
        self.decoder = nn.Linear(d_model, modes * pred_len * 2)
        self.score = nn.Linear(d_model, modes)

    def forward(self, obs_rel):
        h = self.encoder(self.embed(obs_rel) + self.pos)[:, -1]
        futures = self.decoder(h).view(-1, self.modes, self.pred_len, 2)
        return futures, self.score(h)


def best_of_k_loss(futures, logits, target):
    """Winner-takes-all regression on the closest mode + classification of that mode."""
    err = (futures - target.unsqueeze(1)).norm(dim=-1).mean(-1)  # (B, K)
    best = err.argmin(1)
    reg = err.gather(1, best[:, None]).mean()
    cls = nn.functional.cross_entropy(logits, best)
    return reg + 0.5 * cls
