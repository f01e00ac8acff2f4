import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab_size, max_len, d_model, n_layers, n_heads):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.1, batch_first=True,
                                           norm_first=True)
        self.layers = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, ids):
        h = self.tok(ids) + self.pos[:, : ids.size(1)]
        return self.norm(self.layers(h, src_key_padding_mask=ids.eq(0)))


class MLMModel(nn.Module):
    def __init__(self, encoder, vocab_size):
        super().__init__()
        self.encoder = encoder
        self.lm_head = nn.Linear(encoder.norm.normalized_shape[0], vocab_size)

    def forward(self, ids):
        return self.lm_head(self.encoder(ids))


class Classifier(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(encoder.norm.normalized_shape[0], 1))

    def forward(self, ids):
        h = self.encoder(ids)
        keep = ids.ne(0).unsqueeze(-1).float()
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled).squeeze(-1)
