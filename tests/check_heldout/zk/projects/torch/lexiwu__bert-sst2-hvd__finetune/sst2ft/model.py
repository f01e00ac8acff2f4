import torch
from torch import nn


class TextClassifier(nn.Module):
    """Tiny BERT-like encoder with a [CLS] classification head."""

    def __init__(self, vocab_size, num_labels=2, d_model=128, n_heads=4, n_layers=2, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, num_labels)

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.size(1), device=input_ids.device)
        h = self.tok(input_ids) + self.pos(pos)[None]
        h = self.encoder(h, src_key_padding_mask=~attention_mask)
        return self.head(self.norm(h[:, 0]))
