import torch.nn as nn


class KWSNet(nn.Module):
    """Conv front-end + GRU; keyword classifier on the last state and a CTC phone head per frame."""

    def __init__(self, n_mels, n_keywords, n_phones, hidden=128):
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(n_mels, hidden, 5, padding=2), nn.BatchNorm1d(hidden), nn.ReLU())
        self.rnn = nn.GRU(hidden, hidden, num_layers=2, batch_first=True)
        self.kw_head = nn.Linear(hidden, n_keywords)
        self.ctc_head = nn.Linear(hidden, n_phones + 1)  # + blank

    def forward(self, x):                        # x: [B, T, F]
        h = self.front(x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.kw_head(h[:, -1]), self.ctc_head(h).log_softmax(-1)
