import torch
import torch.nn as nn


def positional_encoding(x, n_freqs):
    out = [x]
    for k in range(n_freqs):
        out += [torch.sin((2.0 ** k) * x), torch.cos((2.0 ** k) * x)]
    return torch.cat(out, -1)


class NeRFMLP(nn.Module):
    def __init__(self, width=128, depth=6, xyz_freqs=10, dir_freqs=4):
        super().__init__()
        self.xyz_freqs, self.dir_freqs = xyz_freqs, dir_freqs
        cin = 3 + 6 * xyz_freqs
        layers = []
        for i in range(depth):
            layers += [nn.Linear(cin if i == 0 else width, width), nn.ReLU(True)]
        self.trunk = nn.Sequential(*layers)
        self.sigma = nn.Linear(width, 1)
        self.rgb = nn.Sequential(nn.Linear(width + 3 + 6 * dir_freqs, width // 2), nn.ReLU(True),
                                 nn.Linear(width // 2, 3), nn.Sigmoid())

    def forward(self, xyz, dirs):
        h = self.trunk(positional_encoding(xyz, self.xyz_freqs))
        rgb = self.rgb(torch.cat([h, positional_encoding(dirs, self.dir_freqs)], -1))
        return rgb, self.sigma(h).squeeze(-1)
