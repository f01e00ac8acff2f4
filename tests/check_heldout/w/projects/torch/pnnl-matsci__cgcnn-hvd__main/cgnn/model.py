import torch
import torch.nn as nn


def gaussian_expand(d, centers):
    return torch.exp(-((d[:, None] - centers[None, :]) ** 2) / 0.25)


class ConvLayer(nn.Module):
    def __init__(self, dim, edim):
        super().__init__()
        self.fc = nn.Linear(2 * dim + edim, 2 * dim)
        self.bn = nn.BatchNorm1d(dim)

    def forward(self, h, ei, e):
        z = self.fc(torch.cat([h[ei[0]], h[ei[1]], e], dim=1))
        gate, core = z.chunk(2, dim=1)
        msg = torch.sigmoid(gate) * nn.functional.softplus(core)
        agg = torch.zeros_like(h).index_add_(0, ei[0], msg)
        return nn.functional.softplus(h + self.bn(agg))


class CGCNN(nn.Module):
    def __init__(self, in_dim=92, dim=64, n_conv=3, n_gauss=40):
        super().__init__()
        self.register_buffer("centers", torch.linspace(0.0, 8.0, n_gauss))
        self.embed = nn.Linear(in_dim, dim)
        self.convs = nn.ModuleList([ConvLayer(dim, n_gauss) for _ in range(n_conv)])
        self.out = nn.Sequential(nn.Linear(dim, 128), nn.Softplus(), nn.Linear(128, 1))

    def forward(self, x, ei, d, batch):
        h = self.embed(x)
        e = gaussian_expand(d, self.centers)
        for conv in self.convs:
            h = conv(h, ei, e)
        n_graphs = int(batch.max()) + 1
        pooled = torch.zeros(n_graphs, h.shape[1], device=h.device).index_add_(0, batch, h)
        counts = torch.bincount(batch, minlength=n_graphs).clamp(min=1).unsqueeze(1)
        return self.out(pooled / counts).squeeze(1)
