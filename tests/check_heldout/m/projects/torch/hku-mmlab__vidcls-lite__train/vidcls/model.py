import torch.nn as nn


def _block(cin, cout, pool):
    layers = [nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool3d(pool))
    return nn.Sequential(*layers)


class C3DSmall(nn.Module):
    def __init__(self, num_classes, dropout=0.3):
        super().__init__()
        self.features = nn.Sequential(
            _block(3, 32, (1, 2, 2)), _block(32, 64, 2), _block(64, 128, 2), _block(128, 256, 2))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(256, num_classes))

    def forward(self, x):
        return self.head(self.pool(self.features(x)).flatten(1))


def build_model(cfg):
    if cfg["model"]["name"] != "c3d_small":
        raise ValueError(f"unknown model {cfg['model']['name']}")
    return C3DSmall(cfg["model"]["num_classes"], cfg["model"]["dropout"])
