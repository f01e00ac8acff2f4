import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), nn.LeakyReLU(0.3), nn.MaxPool3d(2))


class CosmoNet(nn.Module):
    """Three conv blocks and a small MLP head; outputs the 4 normalised parameters in (-1, 1)."""

    def __init__(self, n_filters, n_out, dropout):
        super().__init__()
        f = n_filters
        self.features = nn.Sequential(conv_block(1, f), conv_block(f, 2 * f), conv_block(2 * f, 4 * f),
                                      nn.AdaptiveAvgPool3d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * f * 8, 128), nn.LeakyReLU(0.3),
                                  nn.Dropout(dropout), nn.Linear(128, 64), nn.LeakyReLU(0.3),
                                  nn.Linear(64, n_out), nn.Tanh())

    def forward(self, x):
        return self.head(self.features(x))
