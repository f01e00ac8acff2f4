import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv3d(cin, cout, kernel_size=3, padding=1),
        nn.LeakyReLU(0.3),
        nn.MaxPool3d(2),
    )


class CosmoFlowLite(nn.Module):
    """Cut-down CosmoFlow: conv blocks + dense head regressing 4 cosmological parameters."""

    def __init__(self, in_channels=4, base=16, n_blocks=4, cube=64, dropout=0.2):
        super().__init__()
        layers, c = [], in_channels
        for i in range(n_blocks):
            layers.append(conv_block(c, base * 2 ** min(i, 2)))
            c = base * 2 ** min(i, 2)
        self.features = nn.Sequential(*layers)
        side = cube // 2 ** n_blocks
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(c * side ** 3, 128), nn.LeakyReLU(0.3), nn.Dropout(dropout),
            nn.Linear(128, 64), nn.LeakyReLU(0.3), nn.Dropout(dropout),
            nn.Linear(64, 4), nn.Tanh(),
        )

    def forward(self, x):
        return self.head(self.features(x))
