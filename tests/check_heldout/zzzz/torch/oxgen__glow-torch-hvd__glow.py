# Glow (Kingma & Dhariwal 2018), small version for 32x32 images, horovod data parallel.
# actnorm -> invertible 1x1 conv -> affine coupling, multi-scale with squeeze/split.
import argparse, math, os, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import torchvision
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/celeba32.npy")
p.add_argument("--n_bits", type=int, default=5)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--n_flow", type=int, default=8)
p.add_argument("--n_block", type=int, default=3)
p.add_argument("--lr", type=float, default=1e-4)
p.add_argument("--iters", type=int, default=200000)
p.add_argument("--temp", type=float, default=0.7)
p.add_argument("--ckpt", default="glow_ckpt")
p.add_argument("--log_every", type=int, default=100)
p.add_argument("--save_every", type=int, default=2000)
args = p.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"
logabs = lambda x: torch.log(torch.abs(x))


class ActNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.logs = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.register_buffer("inited", torch.tensor(0, dtype=torch.uint8))

    @torch.no_grad()
    def initialize(self, x):
        # data dependent init: zero mean / unit var per channel on the first batch
        mean = x.mean(dim=(0, 2, 3), keepdim=True)
        std = x.std(dim=(0, 2, 3), keepdim=True)
        self.loc.data.copy_(-mean)
        self.logs.data.copy_(torch.log(1 / (std + 1e-6)))
        self.inited.fill_(1)

    def forward(self, x):
        if self.inited.item() == 0:
            self.initialize(x)
        _, _, h, w = x.shape
        return self.logs.exp() * (x + self.loc), h * w * self.logs.sum()

    def reverse(self, y):
        return y * (-self.logs).exp() - self.loc


class InvConv(nn.Module):
    def __init__(self, c):
        super().__init__()
        q, _ = torch.linalg.qr(torch.randn(c, c))
        self.weight = nn.Parameter(q.unsqueeze(2).unsqueeze(3))

    def forward(self, x):
        _, _, h, w = x.shape
        ld = h * w * torch.slogdet(self.weight.squeeze().double())[1].float()
        return F.conv2d(x, self.weight), ld

    def reverse(self, y):
        return F.conv2d(y, self.weight.squeeze().inverse().unsqueeze(2).unsqueeze(3))


class Coupling(nn.Module):
    def __init__(self, c, hidden=256):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(c // 2, hidden, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(hidden, hidden, 1), nn.ReLU(),
                                 nn.Conv2d(hidden, c, 3, padding=1))
        self.net[-1].weight.data.zero_(); self.net[-1].bias.data.zero_()

    def forward(self, x):
        a, b = x.chunk(2, 1)
        logs, t = self.net(a).chunk(2, 1)
        s = torch.sigmoid(logs + 2)
        return torch.cat([a, (b + t) * s], 1), torch.log(s).flatten(1).sum(1)

    def reverse(self, y):
        a, b = y.chunk(2, 1)
        logs, t = self.net(a).chunk(2, 1)
        s = torch.sigmoid(logs + 2)
        return torch.cat([a, b / s - t], 1)


class FlowStep(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.an, self.conv, self.cp = ActNorm(c), InvConv(c), Coupling(c)

    def forward(self, x):
        x, l1 = self.an(x); x, l2 = self.conv(x); x, l3 = self.cp(x)
        return x, l1 + l2 + l3

    def reverse(self, y):
        return self.an.reverse(self.conv.reverse(self.cp.reverse(y)))


def squeeze(x):
    b, c, h, w = x.shape
    x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(b, c * 4, h // 2, w // 2)


def unsqueeze(x):
    b, c, h, w = x.shape
    x = x.view(b, c // 4, 2, 2, h, w).permute(0, 1, 4, 2, 5, 3)
    return x.reshape(b, c // 4, h * 2, w * 2)


class Glow(nn.Module):
    def __init__(self, in_ch=3, n_flow=8, n_block=3):
        super().__init__()
        self.blocks = nn.ModuleList()
        c = in_ch
        for i in range(n_block):
            c *= 4
            self.blocks.append(nn.ModuleList([FlowStep(c) for _ in range(n_flow)]))
            if i < n_block - 1:
                c //= 2

    def forward(self, x):
        logdet, log_p, z_outs = 0, 0, []
        for i, block in enumerate(self.blocks):
            x = squeeze(x)
            for step in block:
                x, ld = step(x)
                logdet = logdet + ld
            if i < len(self.blocks) - 1:
                x, z = x.chunk(2, 1)
            else:
                z = x
            log_p = log_p + (-0.5 * (z ** 2 + math.log(2 * math.pi))).flatten(1).sum(1)
            z_outs.append(z)
        return log_p, logdet, z_outs

    @torch.no_grad()
    def reverse(self, z_list):
        x = None
        for i in reversed(range(len(self.blocks))):
            x = z_list[i] if x is None else torch.cat([x, z_list[i]], 1)
            for step in reversed(self.blocks[i]):
                x = step.reverse(x)
            x = unsqueeze(x)
        return x


def preprocess(x, n_bits):
    n_bins = 2 ** n_bits
    x = torch.floor(x / 2 ** (8 - n_bits)) / n_bins - 0.5
    return x + torch.rand_like(x) / n_bins


def calc_bpd(log_p, logdet, n_pixel, n_bins):
    loss = -math.log(n_bins) * n_pixel + logdet + log_p
    return (-loss / (math.log(2) * n_pixel)).mean()


data = torch.from_numpy(np.load(args.data)).float().permute(0, 3, 1, 2)  # N,32,32,3 uint8
dataset = TensorDataset(data)
sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
loader = DataLoader(dataset, batch_size=args.batch, sampler=sampler, drop_last=True, num_workers=2)

model = Glow(3, args.n_flow, args.n_block).to(device)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)

optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

n_bins = 2.0 ** args.n_bits
n_pixel = 32 * 32 * 3
z_shapes, it, epoch = None, 0, 0
os.makedirs(args.ckpt, exist_ok=True)
t0 = time.time()
while it < args.iters:
    sampler.set_epoch(epoch)
    for (x,) in loader:
        x = preprocess(x.to(device), args.n_bits)
        if it == 0:
            # first pass initialises every ActNorm from this batch
            with torch.no_grad():
                _, _, zs = model(x)
            z_shapes = [z.shape[1:] for z in zs]
        log_p, logdet, _ = model(x)
        bpd = calc_bpd(log_p, logdet, n_pixel, n_bins)
        optimizer.zero_grad()
        bpd.backward()
        optimizer.step()
        if it % args.log_every == 0:
            avg_bpd = hvd.allreduce(bpd.detach(), name="bpd")
            if hvd.rank() == 0:
                print("it %d  bpd %.3f  %.1f img/s" % (it, avg_bpd.item(),
                      args.log_every * args.batch * hvd.size() / (time.time() - t0)))
            t0 = time.time()
        if it % args.save_every == 0:
            torch.save(model.state_dict(), os.path.join(args.ckpt, "model_%06d.pt" % it))
            torch.save(optimizer.state_dict(), os.path.join(args.ckpt, "optim_%06d.pt" % it))
            with torch.no_grad():
                zs = [torch.randn(16, *s, device=device) * args.temp for s in z_shapes]
                torchvision.utils.save_image(model.reverse(zs).cpu().data + 0.5,
                                             os.path.join(args.ckpt, "sample_%06d.png" % it), nrow=4)
        it += 1
        if it >= args.iters:
            break
    epoch += 1
