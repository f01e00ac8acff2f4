from torch import nn


class DeepSleepLite(nn.Module):
    """The small-filter branch of DeepSleepNet, no LSTM (ablation A2 in paper 1)."""

    def __init__(self, n_classes=5):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv1d(1, 32, 50, stride=6), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(8),
            nn.Dropout(0.5),
            nn.Conv1d(32, 64, 8), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 8), nn.BatchNorm1d(64), nn.ReLU(), nn.AdaptiveMaxPool1d(4),
        )
        self.fc = nn.Linear(64 * 4, n_classes)

    def forward(self, x):
        return self.fc(self.cnn(x).flatten(1))
