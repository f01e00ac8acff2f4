import torch.nn as nn


class ECGNet(nn.Module):
    """Plain 1D CNN, good enough as a CV baseline."""

    def __init__(self, n_leads=1, n_classes=5, width=32):
        super().__init__()
        layers, cin = [], n_leads
        for mult in (1, 2, 4):
            layers += [nn.Conv1d(cin, width * mult, 7, padding=3), nn.BatchNorm1d(width * mult),
                       nn.ReLU(), nn.MaxPool1d(2)]
            cin = width * mult
        self.body = nn.Sequential(*layers, nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.fc = nn.Linear(cin, n_classes)

    def forward(self, x):
        return self.fc(self.body(x))
