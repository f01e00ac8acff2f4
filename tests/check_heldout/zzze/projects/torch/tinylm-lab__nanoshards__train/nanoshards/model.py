import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, seq_len, d_model, n_layer, n_head):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_head, 4 * d_model, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer)
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        t = idx.size(1)
        pos = torch.arange(t, device=idx.device)
        mask = nn.Transformer.generate_square_subsequent_mask(t, device=idx.device)
        x = self.blocks(self.tok(idx) + self.pos(pos), mask=mask, is_causal=True)
        logits = self.head(self.ln(x))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss
