import torch.nn as nn


class CTCModel(nn.Module):
    def __init__(self, n_mels, vocab, hidden=256):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_mels, hidden, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 5, padding=2), nn.ReLU())
        self.rnn = nn.GRU(hidden, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, vocab)

    def forward(self, x):  # x: [B, T, n_mels]
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.out(h).log_softmax(-1)
