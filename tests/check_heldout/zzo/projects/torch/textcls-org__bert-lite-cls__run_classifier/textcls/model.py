import torch
from torch import nn


class EncoderClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(cfg.max_seq_len, cfg.d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(cfg.d_model, 4, 4 * cfg.d_model, 0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.num_layers)
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(cfg.d_model, cfg.num_labels))

    def forward(self, input_ids):
        h = self.embed(input_ids) + self.pos[: input_ids.size(1)]
        h = self.encoder(h, src_key_padding_mask=input_ids.eq(0))
        return self.head(h[:, 0])
