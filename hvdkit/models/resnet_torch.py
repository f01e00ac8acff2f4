"""ResNet34 for PyTorch (He et al. 2016), layer for layer torchvision's `resnet34()`. Needs torch only.

torchvision does not import beside the CPU torch this project pins, so hvdkit carries its own copy:
BasicBlocks [3, 4, 6, 3], a 7x7 stem, 1x1 projection shortcuts where the shape changes. With 1000
classes it has 21,797,672 parameters, the standard count; batch-norm running statistics are buffers,
not parameters, as in torchvision. Inputs are NCHW float images; any size >= 32 pixels works (the
network downsamples by 32, then pools globally).

Speed (docs/performance.md): on a CPU, images of 128 pixels and more go through the network in
channels-last memory (NHWC strides, the layout oneDNN's convolutions are fastest in); smaller ones stay
NCHW, where channels-last measured slower. Only the activations change layout: forward() converts the
input batch, the weights stay contiguous. A channels-last *model* (`model.to(memory_format=
torch.channels_last)`) would be faster still at 96-128 pixels, but its weights and gradients are not
contiguous and Horovod's broadcast and allreduce refuse them ("Tensor is required to be contiguous").
`channels_last=False` (or True) overrides the size rule. Convolutions whose output has at most 4 pixels
per image (the last stage at 64 px and below) run as one matrix product, Conv2d below (hvdkit/models/im2col.py).

    from hvdkit.models.resnet_torch import resnet34
    model = resnet34(num_classes=1000)
"""
import torch
from torch import nn

from hvdkit.models.im2col import out_size, use_im2col

LAYERS = {"resnet18": (2, 2, 2, 2), "resnet34": (3, 4, 6, 3)}


class Conv2d(nn.Conv2d):
    """nn.Conv2d (same weight, same state_dict) that computes outputs of at most IM2COL_MAX_PIXELS pixels per
    image as one matrix product (hvdkit/models/im2col.py says why and what was measured); any other output,
    and any grouped, dilated or biased convolution, is nn.Conv2d's own."""

    def forward(self, x):
        if (self.groups != 1 or self.dilation != (1, 1) or self.bias is not None or isinstance(self.padding, str)
                or self.padding_mode != "zeros" or x.dim() != 4):
            return super().forward(x)
        (kh, kw), (sh, sw), (ph, pw) = self.kernel_size, self.stride, self.padding
        oh, ow = out_size(x.shape[2], kh, sh, ph), out_size(x.shape[3], kw, sw, pw)
        if not use_im2col(oh, ow):
            return super().forward(x)
        n = x.shape[0]
        cols = nn.functional.unfold(x, self.kernel_size, padding=self.padding, stride=self.stride)  # N, C*kh*kw, L
        # Rows: (image, pixel); columns: unfold's (channel, kh, kw) order, the weight's own flattening order.
        y = cols.transpose(1, 2).reshape(n * oh * ow, -1) @ self.weight.reshape(self.out_channels, -1).t()
        return y.reshape(n, oh, ow, self.out_channels).permute(0, 3, 1, 2)


def _conv3x3(cin, cout, stride=1):
    return Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = _conv3x3(cin, cout, stride)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = _conv3x3(cout, cout)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


# Smallest image side for which channels-last activations paid on a CPU (ResNet34, batch 16, 2 threads; 96 and
# 128 px measured by hand when choosing the rule: slower at 96, faster at 128; benchmarks/resnet_bench.py
# records both layouts at 64 and 224 px each run).
CHANNELS_LAST_FROM = 128


class ResNet(nn.Module):
    def __init__(self, layers, num_classes=1000, zero_init_residual=False, channels_last="auto"):
        super().__init__()
        if channels_last not in ("auto", True, False):
            raise ValueError(f"channels_last={channels_last!r}: use 'auto', True or False")
        self.channels_last = channels_last
        self.conv1 = Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        cin = 64
        stages = []
        for i, blocks in enumerate(layers):
            cout, stride = 64 * 2 ** i, 1 if i == 0 else 2
            stage = [BasicBlock(cin, cout, stride)] + [BasicBlock(cout, cout) for _ in range(blocks - 1)]
            stages.append(nn.Sequential(*stage))
            cin = cout
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)
        # torchvision's initialization, so training behaves like the reference model's.
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
        if zero_init_residual:
            # Goyal et al. 2017: each block starts as the identity, which helps large-batch training.
            for m in self.modules():
                if isinstance(m, BasicBlock):
                    nn.init.zeros_(m.bn2.weight)

    def _wants_channels_last(self, x):
        if self.channels_last != "auto":
            return self.channels_last
        return x.device.type == "cpu" and min(x.shape[-2:]) >= CHANNELS_LAST_FROM

    def forward(self, x):
        if x.dim() == 4 and self._wants_channels_last(x):
            x = x.contiguous(memory_format=torch.channels_last)  # a copy of the batch; every layer then follows it
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet34(num_classes=1000, zero_init_residual=False, channels_last="auto"):
    return ResNet(LAYERS["resnet34"], num_classes, zero_init_residual, channels_last)


def resnet18(num_classes=1000, zero_init_residual=False, channels_last="auto"):
    return ResNet(LAYERS["resnet18"], num_classes, zero_init_residual, channels_last)


def count(model):
    """(parameters, batch-norm running-statistic values) of a model: what a Keras model calls
    trainable and non-trainable weights (num_batches_tracked, a step counter, is not counted)."""
    params = sum(p.numel() for p in model.parameters())
    stats = sum(b.numel() for name, b in model.named_buffers() if name.endswith(("running_mean", "running_var")))
    return params, stats
