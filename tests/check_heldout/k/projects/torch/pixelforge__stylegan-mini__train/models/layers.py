import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class EqualConv2d(nn.Module):
    """Conv with the equalized learning-rate trick (weights scaled at run time)."""

    def __init__(self, cin, cout, k, stride=1, padding=0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cout, cin, k, k))
        self.bias = nn.Parameter(torch.zeros(cout))
        self.scale = 1 / math.sqrt(cin * k * k)
        self.stride, self.padding = stride, padding

    def forward(self, x):
        return F.conv2d(x, self.weight * self.scale, self.bias, self.stride, self.padding)


class EqualLinear(nn.Module):
    def __init__(self, din, dout, lr_mul=1.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dout, din) / lr_mul)
        self.bias = nn.Parameter(torch.zeros(dout))
        self.scale = lr_mul / math.sqrt(din)
        self.lr_mul = lr_mul

    def forward(self, x):
        return F.linear(x, self.weight * self.scale, self.bias * self.lr_mul)
