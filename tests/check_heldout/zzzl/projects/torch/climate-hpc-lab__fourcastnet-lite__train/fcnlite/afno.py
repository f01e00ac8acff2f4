import torch
import torch.nn as nn


class AFNOMixer(nn.Module):
    """Spectral token mixing in Fourier space (block-diagonal complex MLP)."""

    def __init__(self, dim, blocks=8):
        super().__init__()
        self.blocks = blocks
        bs = dim // blocks
        self.w1 = nn.Parameter(0.02 * torch.randn(2, blocks, bs, bs))
        self.w2 = nn.Parameter(0.02 * torch.randn(2, blocks, bs, bs))

    def forward(self, x):  # x: B, H, W, C
        B, H, W, C = x.shape
        xf = torch.fft.rfft2(x.float(), dim=(1, 2), norm="ortho")
        xf = xf.reshape(B, H, W // 2 + 1, self.blocks, C // self.blocks)
        w1 = torch.complex(self.w1[0], self.w1[1])
        w2 = torch.complex(self.w2[0], self.w2[1])
        h = torch.einsum("bhwnc,ncd->bhwnd", xf, w1)
        h = torch.complex(torch.relu(h.real), torch.relu(h.imag))
        h = torch.einsum("bhwnc,ncd->bhwnd", h, w2).reshape(B, H, W // 2 + 1, C)
        return torch.fft.irfft2(h, s=(H, W), dim=(1, 2), norm="ortho").type_as(x) + x


class AFNONet(nn.Module):
    def __init__(self, params):
        super().__init__()
        cin, cout = len(params.in_channels), len(params.out_channels)
        p, d = params.patch_size, params.embed_dim
        self.p = p
        self.embed = nn.Conv2d(cin, d, p, stride=p)
        self.layers = nn.ModuleList([nn.Sequential() for _ in range(params.depth)])
        self.mix = nn.ModuleList([AFNOMixer(d) for _ in range(params.depth)])
        self.norm = nn.ModuleList([nn.LayerNorm(d) for _ in range(params.depth)])
        self.head = nn.ConvTranspose2d(d, cout, p, stride=p)

    def forward(self, x):
        h = self.embed(x).permute(0, 2, 3, 1)
        for n, m in zip(self.norm, self.mix):
            h = m(n(h))
        return self.head(h.permute(0, 3, 1, 2))
