import torch.nn as nn

from .ops import CANDIDATES, conv_bn


class ChoiceBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.names = list(CANDIDATES)
        self.choices = nn.ModuleList([CANDIDATES[n](c_in, c_out, stride) for n in self.names])

    def forward(self, x, idx):
        return self.choices[idx](x)


class SuperNet(nn.Module):
    """Weight-sharing supernet: every layer holds all candidate ops, one is run per step."""

    def __init__(self, num_classes=10, widths=(16, 32, 64), layers_per_stage=2):
        super().__init__()
        self.stem = conv_bn(3, widths[0], 3)
        blocks, c_in = [], widths[0]
        for i, w in enumerate(widths):
            for j in range(layers_per_stage):
                stride = 2 if (j == 0 and i > 0) else 1
                blocks.append(ChoiceBlock(c_in, w, stride))
                c_in = w
        self.blocks = nn.ModuleList(blocks)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, num_classes))

    @property
    def num_choices(self):
        return [len(b.choices) for b in self.blocks]

    def forward(self, x, path):
        x = self.stem(x)
        for block, idx in zip(self.blocks, path):
            x = block(x, idx)
        return self.head(x)
