import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, nz=128, ngf=64, size=64):
        super().__init__()
        self.s0 = size // 8
        self.fc = nn.Linear(nz, ngf * 4 * self.s0 * self.s0)
        self.net = nn.Sequential(
            nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1), nn.Tanh())
        self.ngf = ngf

    def forward(self, z):
        h = self.fc(z).view(z.size(0), self.ngf * 4, self.s0, self.s0)
        return self.net(h)


class Critic(nn.Module):
    # no batchnorm in the critic (GP)
    def __init__(self, ndf=64, size=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1), nn.LeakyReLU(0.2, True))
        self.fc = nn.Linear(ndf * 4 * (size // 8) ** 2, 1)

    def forward(self, x):
        return self.fc(self.net(x).flatten(1))

    def features(self, x):
        return self.net(x).flatten(1)
