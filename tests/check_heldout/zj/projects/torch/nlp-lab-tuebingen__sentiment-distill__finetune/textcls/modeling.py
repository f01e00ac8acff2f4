import torch
import torch.nn as nn


class TinyEncoderClassifier(nn.Module):
    def __init__(self, vocab_size, max_len, dim, heads, layers, dropout, num_labels):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, dim))
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.cls = nn.Linear(dim, num_labels)

    def forward(self, ids):
        pad = ids.eq(0)
        h = self.tok(ids) + self.pos[:, : ids.size(1)]
        h = self.encoder(h, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        h = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.cls(self.norm(h))


def build_model(cfg):
    m = cfg.model
    return TinyEncoderClassifier(cfg.data.vocab_size, cfg.data.max_len, m.dim, m.heads, m.layers,
                                 m.dropout, m.num_labels)
