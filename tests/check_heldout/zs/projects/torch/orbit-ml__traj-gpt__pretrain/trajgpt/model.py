import torch
import torch.nn as nn
import torch.nn.functional as F


class TrajGPT(nn.Module):
    def __init__(self, vocab, context, n_layer, n_head, n_embd):
        super().__init__()
        self.tok = nn.Embedding(vocab, n_embd)
        self.pos = nn.Embedding(context, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, 0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer)
        self.ln = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab, bias=False)
        self.head.weight = self.tok.weight

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=idx.device)
        logits = self.head(self.ln(self.blocks(x, mask=mask, is_causal=True)))
        if targets is None:
            return logits
        return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())
