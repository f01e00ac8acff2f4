import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class TinyEncoderForSequenceClassification(nn.Module):
    def __init__(self, vocab_size=512, hidden=256, layers=6, heads=4, num_labels=2, max_len=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, hidden))
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, batch_first=True, norm_first=True)
            for _ in range(layers)
        )
        self.classifier = nn.Linear(hidden, num_labels)
        self.gradient_checkpointing = False

    def gradient_checkpointing_enable(self):
        self.gradient_checkpointing = True

    def forward(self, input_ids, attention_mask, labels=None):
        x = self.embed(input_ids) + self.pos[:, : input_ids.size(1)]
        pad = attention_mask == 0
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                x = checkpoint(layer, x, None, pad, use_reentrant=False)
            else:
                x = layer(x, src_key_padding_mask=pad)
        logits = self.classifier(x[:, 0])
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return loss, logits
