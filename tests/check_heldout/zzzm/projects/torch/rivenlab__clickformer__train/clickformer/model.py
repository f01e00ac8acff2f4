import torch.nn as nn


class TinyFormer(nn.Module):
    def __init__(self, vocab, d_model, n_heads, n_layers, n_classes):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=2 * d_model,
                                           batch_first=True)
        self.enc = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        h = self.enc(self.emb(x))
        return self.head(h.mean(1))
