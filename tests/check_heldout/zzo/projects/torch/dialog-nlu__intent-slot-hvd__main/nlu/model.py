from torch import nn


class JointIntentSlot(nn.Module):
    def __init__(self, vocab, n_slots, n_intents, emb=200, hidden=256):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.enc = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.slot_head = nn.Linear(2 * hidden, n_slots)
        self.intent_head = nn.Linear(2 * hidden, n_intents)

    def forward(self, words):
        h, _ = self.enc(self.emb(words))
        mask = words.ne(0).unsqueeze(-1).float()
        pooled = (h * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.slot_head(h), self.intent_head(pooled)
