import torch.nn as nn


def weights_init(m):
    name = m.__class__.__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    """DCGAN generator, 32x32 or 64x64 output."""

    def __init__(self, nz=128, ngf=64, img_size=64):
        super().__init__()
        n_up = {32: 3, 64: 4}[img_size]
        mult = 2 ** (n_up - 1)
        layers = [nn.ConvTranspose2d(nz, ngf * mult, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * mult), nn.ReLU(True)]
        for _ in range(n_up - 1):
            layers += [nn.ConvTranspose2d(ngf * mult, ngf * mult // 2, 4, 2, 1, bias=False),
                       nn.BatchNorm2d(ngf * mult // 2), nn.ReLU(True)]
            mult //= 2
        layers += [nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z.view(z.size(0), -1, 1, 1))


class Discriminator(nn.Module):
    def __init__(self, ndf=64, img_size=64):
        super().__init__()
        n_down = {32: 3, 64: 4}[img_size]
        layers = [nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True)]
        mult = 1
        for _ in range(n_down - 1):
            layers += [nn.Conv2d(ndf * mult, ndf * mult * 2, 4, 2, 1, bias=False),
                       nn.BatchNorm2d(ndf * mult * 2), nn.LeakyReLU(0.2, True)]
            mult *= 2
        layers += [nn.Conv2d(ndf * mult, 1, 4, 1, 0, bias=False)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).view(-1)
