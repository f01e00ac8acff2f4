import torch
import torch.nn as nn


class Mapping(nn.Module):
    def __init__(self, z_dim, w_dim, n):
        super().__init__()
        layers = []
        for i in range(n):
            layers += [nn.Linear(z_dim if i == 0 else w_dim, w_dim), nn.LeakyReLU(0.2)]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        z = z * (z.square().mean(1, keepdim=True) + 1e-8).rsqrt()
        return self.net(z)


class Synthesis(nn.Module):
    def __init__(self, w_dim, res):
        super().__init__()
        self.const = nn.Parameter(torch.randn(1, 128, 4, 4))
        self.style = nn.Linear(w_dim, 128)
        blocks = []
        r = 4
        while r < res:
            blocks += [nn.Upsample(scale_factor=2), nn.Conv2d(128, 128, 3, padding=1), nn.LeakyReLU(0.2)]
            r *= 2
        self.blocks = nn.Sequential(*blocks)
        self.to_rgb = nn.Conv2d(128, 3, 1)

    def forward(self, w):
        x = self.const.expand(w.size(0), -1, -1, -1) * (1 + self.style(w))[:, :, None, None]
        return self.to_rgb(self.blocks(x))


class Generator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.mapping = Mapping(cfg.z_dim, cfg.w_dim, cfg.mapping_layers)
        self.synthesis = Synthesis(cfg.w_dim, cfg.resolution)

    def forward(self, z):
        return self.synthesis(self.mapping(z))


class Discriminator(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers, ch, r = [nn.Conv2d(3, 64, 1), nn.LeakyReLU(0.2)], 64, cfg.resolution
        while r > 4:
            layers += [nn.Conv2d(ch, min(ch * 2, 256), 3, padding=1), nn.LeakyReLU(0.2), nn.AvgPool2d(2)]
            ch, r = min(ch * 2, 256), r // 2
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(ch * 16, 1)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))
