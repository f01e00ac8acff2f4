import torch.nn as nn


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab_size, emb_dim=256, hidden=512, num_layers=2, dropout=0.2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim)
        self.rnn = nn.LSTM(emb_dim, hidden, num_layers=num_layers, dropout=dropout, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.proj = nn.Linear(hidden, vocab_size)

    def forward(self, tokens):
        out, _ = self.rnn(self.embed(tokens))
        return self.proj(self.drop(out))
