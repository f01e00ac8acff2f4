import torch
import torch.nn as nn
import torch.nn.functional as F


class AffineSTN(nn.Module):
    """Rectifies slanted handwriting with a learned affine warp (starts at identity)."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 16, 5, 2, 2), nn.ReLU(), nn.Conv2d(16, 32, 5, 2, 2), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d((2, 8)), nn.Flatten(), nn.Linear(512, 6))
        nn.init.zeros_(self.loc[-1].weight)
        self.loc[-1].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


class Recognizer(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        c = [1, 32, 64, 128, 256]
        layers = []
        for i in range(4):
            layers += [nn.Conv2d(c[i], c[i + 1], 3, 1, 1), nn.BatchNorm2d(c[i + 1]), nn.LeakyReLU(0.1)]
            layers.append(nn.MaxPool2d(2 if i < 2 else (2, 1)))
        self.features = nn.Sequential(*layers)
        self.rnn = nn.GRU(256, 192, num_layers=2, bidirectional=True, batch_first=True, dropout=0.2)
        self.classifier = nn.Linear(384, n_classes)

    def forward(self, x):
        f = self.features(x).mean(2).transpose(1, 2)
        return self.classifier(self.rnn(f)[0])


class HTRModel(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.stn = AffineSTN()
        self.recognizer = Recognizer(n_classes)

    def forward(self, x):
        return self.recognizer(self.stn(x))
