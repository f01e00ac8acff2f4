import torch
import torch.nn as nn


class ConvFeatureEncoder(nn.Module):
    def __init__(self, dim=256):
        super().__init__()
        spec = [(10, 5), (3, 2), (3, 2), (3, 2), (2, 2)]
        layers, cin = [], 1
        for k, s in spec:
            layers += [nn.Conv1d(cin, dim, k, s), nn.GroupNorm(1, dim), nn.GELU()]
            cin = dim
        self.net = nn.Sequential(*layers)

    def forward(self, wav):
        return self.net(wav[:, None]).transpose(1, 2)


class IntentClassifier(nn.Module):
    def __init__(self, n_intents=31, dim=256, depth=4):
        super().__init__()
        self.features = ConvFeatureEncoder(dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim * 4, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.head = nn.Linear(dim, n_intents)

    def forward(self, wav):
        return self.head(self.encoder(self.features(wav)).mean(1))
