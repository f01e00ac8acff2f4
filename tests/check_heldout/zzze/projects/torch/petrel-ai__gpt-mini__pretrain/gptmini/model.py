import torch.nn as nn


class GRULanguageModel(nn.Module):
    def __init__(self, vocab, dim, layers):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, num_layers=layers, batch_first=True)
        self.out = nn.Linear(dim, vocab)
        self.out.weight = self.emb.weight

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)
