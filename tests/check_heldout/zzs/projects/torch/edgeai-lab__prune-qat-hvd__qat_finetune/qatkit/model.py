import torch.nn as nn
from torch.ao.quantization import DeQuantStub, QuantStub


def conv_bn_relu(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class TinyNet(nn.Module):
    """MobileNet-ish CNN for 32x32 inputs, quantization friendly (stubs + fusable blocks)."""

    def __init__(self, num_classes=10, width=32):
        super().__init__()
        self.quant = QuantStub()
        self.body = nn.Sequential(
            conv_bn_relu(3, width), conv_bn_relu(width, width * 2, 2),
            conv_bn_relu(width * 2, width * 4, 2), conv_bn_relu(width * 4, width * 4, 2),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width * 4, num_classes)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.pool(self.body(self.quant(x))).flatten(1)
        return self.dequant(self.fc(x))

    def fuse(self):
        import torch.ao.quantization as tq
        for block in self.body:
            tq.fuse_modules_qat(block, ["0", "1", "2"], inplace=True)
        return self
