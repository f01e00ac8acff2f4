import torch.nn as nn


class BiLSTMTagger(nn.Module):
    def __init__(self, vocab_size, num_tags, emb_dim=100, hidden=256, layers=2, dropout=0.33):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.lstm = nn.LSTM(emb_dim, hidden, num_layers=layers, bidirectional=True, batch_first=True,
                            dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, num_tags)

    def forward(self, words):
        h, _ = self.lstm(self.drop(self.embed(words)))
        return self.out(self.drop(h))
