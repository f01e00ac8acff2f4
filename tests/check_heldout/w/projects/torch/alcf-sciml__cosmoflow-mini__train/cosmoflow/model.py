import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), nn.LeakyReLU(0.3), nn.MaxPool3d(2))


class CosmoFlow(nn.Module):
    def __init__(self, in_ch=4, n_out=4, width=16, n_blocks=4):
        super().__init__()
        chans = [in_ch] + [width * 2 ** min(i, 2) for i in range(n_blocks)]
        self.features = nn.Sequential(*[conv_block(a, b) for a, b in zip(chans[:-1], chans[1:])])
        self.head = nn.Sequential(nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(chans[-1], 64),
                                  nn.LeakyReLU(0.3), nn.Dropout(0.2), nn.Linear(64, n_out), nn.Tanh())

    def forward(self, x):
        return self.head(self.features(x))
