import torch.nn as nn


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.b = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c), nn.ReLU(True),
                               nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c))

    def forward(self, x):
        return x + self.b(x)


def resnet_generator(n_blocks=6, ngf=64):
    layers = [nn.ReflectionPad2d(3), nn.Conv2d(3, ngf, 7), nn.InstanceNorm2d(ngf), nn.ReLU(True),
              nn.Conv2d(ngf, ngf * 2, 3, 2, 1), nn.InstanceNorm2d(ngf * 2), nn.ReLU(True),
              nn.Conv2d(ngf * 2, ngf * 4, 3, 2, 1), nn.InstanceNorm2d(ngf * 4), nn.ReLU(True)]
    layers += [ResBlock(ngf * 4) for _ in range(n_blocks)]
    layers += [nn.ConvTranspose2d(ngf * 4, ngf * 2, 3, 2, 1, output_padding=1), nn.InstanceNorm2d(ngf * 2),
               nn.ReLU(True), nn.ConvTranspose2d(ngf * 2, ngf, 3, 2, 1, output_padding=1),
               nn.InstanceNorm2d(ngf), nn.ReLU(True), nn.ReflectionPad2d(3), nn.Conv2d(ngf, 3, 7), nn.Tanh()]
    return nn.Sequential(*layers)


def patch_discriminator(ndf=64):
    return nn.Sequential(
        nn.Conv2d(3, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.InstanceNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1), nn.InstanceNorm2d(ndf * 4), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf * 4, 1, 4, 1, 1))
