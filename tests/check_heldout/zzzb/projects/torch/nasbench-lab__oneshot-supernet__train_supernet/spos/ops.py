import torch.nn as nn


def conv_bn(c_in, c_out, k, stride=1, groups=1):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, k, stride, padding=k // 2, groups=groups, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class SepConv(nn.Module):
    def __init__(self, c_in, c_out, k, stride):
        super().__init__()
        self.dw = conv_bn(c_in, c_in, k, stride, groups=c_in)
        self.pw = conv_bn(c_in, c_out, 1)

    def forward(self, x):
        return self.pw(self.dw(x))


class Identity(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.proj = None if (c_in == c_out and stride == 1) else conv_bn(c_in, c_out, 1, stride)

    def forward(self, x):
        return x if self.proj is None else self.proj(x)


CANDIDATES = {
    "sep3": lambda ci, co, s: SepConv(ci, co, 3, s),
    "sep5": lambda ci, co, s: SepConv(ci, co, 5, s),
    "conv3": lambda ci, co, s: conv_bn(ci, co, 3, s),
    "skip": lambda ci, co, s: Identity(ci, co, s),
}
