import torch.nn as nn


def conv_bn(cin, cout, pool):
    layers = [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool2d(pool))
    return layers


class CRNN(nn.Module):
    def __init__(self, num_classes, hidden=256):
        super().__init__()
        self.cnn = nn.Sequential(
            *conv_bn(1, 64, 2), *conv_bn(64, 128, 2),
            *conv_bn(128, 256, (2, 1)), *conv_bn(256, 256, (2, 1)),
            nn.AdaptiveAvgPool2d((1, None)))
        self.rnn = nn.LSTM(256, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(2 * hidden, num_classes)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)   # B, T, C
        f, _ = self.rnn(f)
        return self.fc(f).log_softmax(-1)             # B, T, K
