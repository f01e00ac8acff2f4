import torch
import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, nf):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(nf, nf, 3, 1, 1), nn.LeakyReLU(0.2, True),
                                  nn.Conv2d(nf, nf, 3, 1, 1))

    def forward(self, x):
        return x + 0.2 * self.body(x)


class SRNet(nn.Module):
    def __init__(self, nf=32, nb=4, scale=4):
        super().__init__()
        self.head = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(*[ResBlock(nf) for _ in range(nb)])
        ups = []
        for _ in range(scale // 2):
            ups += [nn.Conv2d(nf, nf * 4, 3, 1, 1), nn.PixelShuffle(2), nn.LeakyReLU(0.2, True)]
        self.up = nn.Sequential(*ups)
        self.tail = nn.Conv2d(nf, 3, 3, 1, 1)

    def forward(self, x):
        f = self.head(x)
        return self.tail(self.up(f + self.body(f)))


class VGGFeatures(nn.Module):
    """First blocks of VGG19 (conv1_1 .. relu2_2); weights come from a converted .pth file."""

    def __init__(self, weights_path):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, 1, 1), nn.ReLU(True), nn.Conv2d(64, 64, 3, 1, 1), nn.ReLU(True),
            nn.MaxPool2d(2), nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(True),
            nn.Conv2d(128, 128, 3, 1, 1), nn.ReLU(True))
        self.features.load_state_dict(torch.load(weights_path, map_location="cpu"))
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.features((x - self.mean) / self.std)
