import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ImageTower(nn.Module):
    def __init__(self, in_dim, embed_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 512), nn.GELU(), nn.Linear(512, embed_dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


class TextTower(nn.Module):
    def __init__(self, vocab_size, embed_dim):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, 256, mode="mean", padding_idx=0)
        self.proj = nn.Linear(256, embed_dim)

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


class CLIPMini(nn.Module):
    def __init__(self, img_dim, vocab_size, embed_dim, init_temperature=0.07):
        super().__init__()
        self.image = ImageTower(img_dim, embed_dim)
        self.text = TextTower(vocab_size, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1.0 / init_temperature)))

    def forward(self, feats, ids):
        return self.image(feats), self.text(ids), self.logit_scale.exp().clamp(max=100.0)
