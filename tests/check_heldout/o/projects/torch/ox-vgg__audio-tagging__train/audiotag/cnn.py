import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)

    def forward(self, x, pool=(2, 2)):
        x = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(x)))
        return F.avg_pool2d(x, pool)


class CNN6(nn.Module):
    """CNN on log-mel spectrograms (batch, frames, mels) -> clip-level tag logits."""

    def __init__(self, n_mels=64, n_classes=527, width=64):
        super().__init__()
        self.bn0 = nn.BatchNorm2d(n_mels)
        self.blocks = nn.ModuleList([ConvBlock(1, width), ConvBlock(width, 2 * width),
                                     ConvBlock(2 * width, 4 * width), ConvBlock(4 * width, 8 * width)])
        self.fc = nn.Linear(8 * width, 8 * width)
        self.out = nn.Linear(8 * width, n_classes)

    def forward(self, x):
        x = x.unsqueeze(1).transpose(1, 3)        # (B, mels, frames, 1)
        x = self.bn0(x).transpose(1, 3)           # (B, 1, frames, mels)
        for i, blk in enumerate(self.blocks):
            x = blk(x, pool=(2, 2) if i < 3 else (1, 1))
            x = F.dropout(x, 0.2, self.training)
        x = x.mean(3)
        x = x.max(2)[0] + x.mean(2)
        x = F.relu(self.fc(F.dropout(x, 0.5, self.training)))
        return self.out(x)
