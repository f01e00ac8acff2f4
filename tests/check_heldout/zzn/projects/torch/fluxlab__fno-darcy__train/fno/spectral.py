import torch
import torch.nn as nn
import torch.nn.functional as F


class SpectralConv2d(nn.Module):
    """2-D Fourier layer: FFT -> keep the lowest modes -> linear map -> inverse FFT."""

    def __init__(self, in_ch, out_ch, modes1, modes2):
        super().__init__()
        self.modes1, self.modes2 = modes1, modes2
        scale = 1.0 / (in_ch * out_ch)
        # real (..., 2) storage: Horovod cannot broadcast / allreduce complex tensors
        self.w1 = nn.Parameter(scale * torch.rand(in_ch, out_ch, modes1, modes2, 2))
        self.w2 = nn.Parameter(scale * torch.rand(in_ch, out_ch, modes1, modes2, 2))

    @staticmethod
    def cmul(a, w):
        return torch.einsum("bixy,ioxy->boxy", a, torch.view_as_complex(w))

    def forward(self, x):
        b, _, h, w = x.shape
        x_ft = torch.fft.rfft2(x)
        out = torch.zeros(b, self.w1.shape[1], h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
        out[:, :, :self.modes1, :self.modes2] = self.cmul(x_ft[:, :, :self.modes1, :self.modes2], self.w1)
        out[:, :, -self.modes1:, :self.modes2] = self.cmul(x_ft[:, :, -self.modes1:, :self.modes2], self.w2)
        return torch.fft.irfft2(out, s=(h, w))


class FNO2d(nn.Module):
    def __init__(self, modes=12, width=32, depth=4):
        super().__init__()
        self.lift = nn.Linear(3, width)  # (a(x, y), x, y)
        self.spectral = nn.ModuleList([SpectralConv2d(width, width, modes, modes) for _ in range(depth)])
        self.pointwise = nn.ModuleList([nn.Conv2d(width, width, 1) for _ in range(depth)])
        self.proj = nn.Sequential(nn.Linear(width, 128), nn.GELU(), nn.Linear(128, 1))

    def forward(self, a):
        # a: (B, H, W) permeability field
        b, h, w = a.shape
        gy, gx = torch.meshgrid(torch.linspace(0, 1, h, device=a.device),
                                torch.linspace(0, 1, w, device=a.device), indexing="ij")
        x = torch.stack([a, gx.expand(b, h, w), gy.expand(b, h, w)], dim=-1)
        x = self.lift(x).permute(0, 3, 1, 2)
        for i, (sc, pw) in enumerate(zip(self.spectral, self.pointwise)):
            x = sc(x) + pw(x)
            if i < len(self.spectral) - 1:
                x = F.gelu(x)
        return self.proj(x.permute(0, 2, 3, 1)).squeeze(-1)
