import torch.nn as nn


class BeatCNN(nn.Module):
    def __init__(self, n_classes=5, ch=32):
        super().__init__()
        layers, cin = [], 1
        for cout in (ch, ch, ch * 2, ch * 2):
            layers += [nn.Conv1d(cin, cout, 5, padding=2), nn.BatchNorm1d(cout), nn.ReLU(), nn.MaxPool1d(2)]
            cin = cout
        self.body = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(cin, n_classes))

    def forward(self, x):
        return self.head(self.body(x))
