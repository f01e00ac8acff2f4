import torch
import torch.nn as nn
import torch.nn.functional as F


def sparsemax(z, dim=-1):
    z_sorted, _ = torch.sort(z, dim=dim, descending=True)
    k = torch.arange(1, z.size(dim) + 1, device=z.device, dtype=z.dtype).view(1, -1)
    cssv = z_sorted.cumsum(dim) - 1
    support = (k * z_sorted) > cssv
    k_z = support.sum(dim=dim, keepdim=True)
    tau = cssv.gather(dim, k_z - 1) / k_z.to(z.dtype)
    return torch.clamp(z - tau, min=0)


class GBN(nn.Module):
    def __init__(self, d, vbs=128, momentum=0.02):
        super().__init__()
        self.bn = nn.BatchNorm1d(d, momentum=momentum)
        self.vbs = vbs

    def forward(self, x):
        chunks = x.chunk(max(1, x.size(0) // self.vbs), 0)
        return torch.cat([self.bn(c) for c in chunks], 0)


class GLU(nn.Module):
    def __init__(self, i, o, vbs):
        super().__init__()
        self.fc = nn.Linear(i, 2 * o, bias=False)
        self.bn = GBN(2 * o, vbs)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)))


class FeatTransformer(nn.Module):
    def __init__(self, i, o, vbs):
        super().__init__()
        self.l1, self.l2 = GLU(i, o, vbs), GLU(o, o, vbs)

    def forward(self, x):
        x = self.l1(x)
        return (x + self.l2(x)) * (0.5 ** 0.5)


class TabNet(nn.Module):
    def __init__(self, n_num, cards, emb_dim=4, n_d=16, n_a=16, n_steps=4, gamma=1.3, vbs=128):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c + 1, emb_dim) for c in cards])
        d_in = n_num + emb_dim * len(cards)
        self.n_d, self.n_steps, self.gamma = n_d, n_steps, gamma
        self.bn = nn.BatchNorm1d(d_in)
        self.initial = FeatTransformer(d_in, n_d + n_a, vbs)
        self.steps = nn.ModuleList([FeatTransformer(d_in, n_d + n_a, vbs) for _ in range(n_steps)])
        self.att = nn.ModuleList([nn.Sequential(nn.Linear(n_a, d_in, bias=False), GBN(d_in, vbs))
                                  for _ in range(n_steps)])
        self.fc = nn.Linear(n_d, 1)

    def forward(self, x_num, x_cat):
        x = torch.cat([x_num] + [e(x_cat[:, i]) for i, e in enumerate(self.embs)], 1)
        x = self.bn(x)
        prior = torch.ones_like(x)
        a = self.initial(x)[:, self.n_d:]
        out, masks = 0, []
        for step, att in zip(self.steps, self.att):
            m = sparsemax(att(a) * prior)
            prior = prior * (self.gamma - m)
            h = step(x * m)
            out = out + F.relu(h[:, :self.n_d])
            a = h[:, self.n_d:]
            masks.append(m)
        return self.fc(out).squeeze(-1), torch.stack(masks).mean(0)
