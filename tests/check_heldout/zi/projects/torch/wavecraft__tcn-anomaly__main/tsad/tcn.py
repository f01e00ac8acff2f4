import torch
from torch import nn
from torch.nn.utils.parametrizations import weight_norm


class CausalBlock(nn.Module):
    def __init__(self, c_in, c_out, kernel, dilation, dropout):
        super().__init__()
        self.pad = (kernel - 1) * dilation
        self.conv1 = weight_norm(nn.Conv1d(c_in, c_out, kernel, dilation=dilation))
        self.conv2 = weight_norm(nn.Conv1d(c_out, c_out, kernel, dilation=dilation))
        self.drop = nn.Dropout(dropout)
        self.skip = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x):
        y = self.drop(torch.relu(self.conv1(nn.functional.pad(x, (self.pad, 0)))))
        y = self.drop(torch.relu(self.conv2(nn.functional.pad(y, (self.pad, 0)))))
        return torch.relu(y + self.skip(x))


class TCNForecaster(nn.Module):
    def __init__(self, n_channels, hidden=64, levels=6, kernel=3, dropout=0.1):
        super().__init__()
        blocks, c = [], n_channels
        for i in range(levels):
            blocks.append(CausalBlock(c, hidden, kernel, 2 ** i, dropout))
            c = hidden
        self.net = nn.Sequential(*blocks)
        self.out = nn.Linear(hidden, n_channels)

    def forward(self, x):                      # x: B, C, T
        return self.out(self.net(x)[:, :, -1])
