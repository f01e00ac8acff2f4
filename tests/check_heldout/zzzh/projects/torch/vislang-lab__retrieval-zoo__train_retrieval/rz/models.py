import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class DualEncoder(nn.Module):
    def __init__(self, img_dim, vocab_size, dim=256, hidden=512, temperature=0.05):
        super().__init__()
        self.img_proj = nn.Sequential(nn.Linear(img_dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))
        self.embed = nn.Embedding(vocab_size, 300, padding_idx=0)
        self.gru = nn.GRU(300, hidden, batch_first=True, bidirectional=True)
        self.txt_proj = nn.Linear(2 * hidden, dim)
        self.log_inv_tau = nn.Parameter(torch.tensor(math.log(1 / temperature)))

    def encode_image(self, x):
        return F.normalize(self.img_proj(x), dim=-1)

    def encode_text(self, ids):
        h, _ = self.gru(self.embed(ids))
        mask = (ids > 0).unsqueeze(-1).float()
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
        return F.normalize(self.txt_proj(pooled), dim=-1)
