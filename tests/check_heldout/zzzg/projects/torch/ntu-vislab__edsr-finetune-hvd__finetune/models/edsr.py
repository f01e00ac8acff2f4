import torch.nn as nn


class _Res(nn.Module):
    def __init__(self, nf, res_scale):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(nf, nf, 3, padding=1), nn.ReLU(True), nn.Conv2d(nf, nf, 3, padding=1))
        self.res_scale = res_scale

    def forward(self, x):
        return x + self.conv(x) * self.res_scale


class EDSR(nn.Module):
    def __init__(self, scale=4, nf=32, n_res=8, res_scale=0.1):
        super().__init__()
        self.head = nn.Conv2d(3, nf, 3, padding=1)
        self.body = nn.Sequential(*[_Res(nf, res_scale) for _ in range(n_res)], nn.Conv2d(nf, nf, 3, padding=1))
        ups = []
        for _ in range({2: 1, 4: 2}[scale]):
            ups += [nn.Conv2d(nf, 4 * nf, 3, padding=1), nn.PixelShuffle(2)]
        self.tail = nn.Sequential(*ups, nn.Conv2d(nf, 3, 3, padding=1))

    def forward(self, x):
        h = self.head(x)
        return self.tail(h + self.body(h))
