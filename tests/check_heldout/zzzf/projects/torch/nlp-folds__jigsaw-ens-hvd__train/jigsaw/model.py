import torch
import torch.nn as nn


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, emb_dim):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, emb_dim, mode="mean", padding_idx=0)
        self.head = nn.Sequential(nn.Linear(emb_dim, emb_dim), nn.GELU(), nn.Linear(emb_dim, 1))

    def forward(self, ids):
        return self.head(self.emb(ids)).squeeze(-1)
