import torch
import torch.nn as nn


class KmerCNN(nn.Module):
    def __init__(self, k, emb_dim=64, channels=128, kernel=9, dropout=0.2):
        super().__init__()
        self.embed = nn.Embedding(4 ** k + 1, emb_dim, padding_idx=4 ** k)
        self.conv = nn.Sequential(
            nn.Conv1d(emb_dim, channels, kernel, padding=kernel // 2), nn.ReLU(),
            nn.MaxPool1d(4),
            nn.Conv1d(channels, channels, kernel, padding=kernel // 2), nn.ReLU(),
            nn.AdaptiveMaxPool1d(1),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(channels, 1))

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)
        return self.head(self.conv(x))
