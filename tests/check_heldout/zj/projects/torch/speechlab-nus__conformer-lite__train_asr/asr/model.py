import torch.nn as nn


class ConvGRUEncoder(nn.Module):
    """Conv subsampling (x2) + BiGRU + CTC projection."""

    def __init__(self, n_mels, hidden, layers, vocab_size):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(n_mels, hidden, 3, stride=2, padding=1), nn.GELU())
        self.rnn = nn.GRU(hidden, hidden // 2, num_layers=layers, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(hidden, vocab_size)

    def forward(self, feats):
        h = self.subsample(feats.transpose(1, 2)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.proj(h).log_softmax(-1)
