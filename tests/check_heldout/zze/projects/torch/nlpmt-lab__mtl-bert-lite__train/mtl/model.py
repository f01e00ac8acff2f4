import torch.nn as nn


class MultiTaskEncoder(nn.Module):
    """Shared BiGRU encoder with an utterance-level intent head and a token-level slot head."""

    def __init__(self, vocab_size, num_intents, num_slots, dim=256, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, dim // 2, num_layers=2, batch_first=True,
                              bidirectional=True, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.intent_head = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, num_intents))
        self.slot_head = nn.Linear(dim, num_slots)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        h, _ = self.encoder(self.embed(tokens))
        h = self.drop(h)
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.intent_head(pooled), self.slot_head(h)
