import torch
import torch.nn as nn
import torchvision


def conv_bn_relu(cin, cout, k=3, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Up(nn.Module):
    def __init__(self, cin, cskip, cout):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cout, 4, 2, 1)
        self.conv = conv_bn_relu(cout + cskip, cout)

    def forward(self, x, skip):
        x = self.up(x)
        return self.conv(torch.cat([x[..., :skip.shape[-2], :skip.shape[-1]], skip], 1))


class DepthCompletionNet(nn.Module):
    """RGB + sparse depth early fusion, ResNet-18 encoder, U-Net decoder."""

    def __init__(self, max_depth=85.0):
        super().__init__()
        r = torchvision.models.resnet18(weights=None)
        self.rgb_in = conv_bn_relu(3, 48)
        self.d_in = conv_bn_relu(1, 16)
        self.fuse = conv_bn_relu(64, 64)
        self.encoder = nn.ModuleDict(dict(layer1=r.layer1, layer2=r.layer2, layer3=r.layer3, layer4=r.layer4))
        self.up4 = Up(512, 256, 256)
        self.up3 = Up(256, 128, 128)
        self.up2 = Up(128, 64, 64)
        self.head = nn.Conv2d(64, 1, 3, 1, 1)
        self.max_depth = max_depth

    def forward(self, rgb, sparse):
        x = self.fuse(torch.cat([self.rgb_in(rgb), self.d_in(sparse)], 1))
        e1 = self.encoder["layer1"](x)
        e2 = self.encoder["layer2"](e1)
        e3 = self.encoder["layer3"](e2)
        e4 = self.encoder["layer4"](e3)
        y = self.up2(self.up3(self.up4(e4, e3), e2), e1)
        return torch.sigmoid(self.head(y)) * self.max_depth
