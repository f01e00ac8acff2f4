from torch import nn


class ConvBiGRU(nn.Module):
    def __init__(self, vocab=21, emb=64, conv=128, hidden=256, classes=3, dropout=0.25):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb, padding_idx=0)
        self.conv = nn.Sequential(nn.Conv1d(emb, conv, 9, padding=4), nn.ReLU(),
                                  nn.Conv1d(conv, conv, 9, padding=4), nn.ReLU())
        self.rnn = nn.GRU(conv, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=dropout)
        self.out = nn.Sequential(nn.Dropout(dropout), nn.Linear(2 * hidden, classes))

    def forward(self, seq):
        x = self.conv(self.embed(seq).transpose(1, 2)).transpose(1, 2)
        x, _ = self.rnn(x)
        return self.out(x)
