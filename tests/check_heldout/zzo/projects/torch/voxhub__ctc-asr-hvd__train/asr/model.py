from torch import nn


class BiLSTMCTC(nn.Module):
    def __init__(self, n_mels, vocab_size, hidden=512, layers=4):
        super().__init__()
        self.subsample = nn.Conv1d(n_mels, hidden, kernel_size=3, stride=2, padding=1)
        self.rnn = nn.LSTM(hidden, hidden, layers, batch_first=True, bidirectional=True, dropout=0.1)
        self.out = nn.Linear(2 * hidden, vocab_size)

    def forward(self, x, lens):
        x = self.subsample(x.transpose(1, 2)).relu().transpose(1, 2)
        x, _ = self.rnn(x)
        return self.out(x).log_softmax(-1), (lens + 1) // 2
