# Rectified flow / conditional flow matching on image folders, horovod version
# usage: horovodrun -np 8 -H localhost:8 python train_rf.py --data /data/afhq_64.npy --amp
import argparse, os, time, copy, math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--data', type=str, default='data/afhq_64.npy')
parser.add_argument('--out', type=str, default='ckpt_rf')
parser.add_argument('--bs', type=int, default=32)
parser.add_argument('--accum', type=int, default=4)
parser.add_argument('--lr', type=float, default=2e-4)
parser.add_argument('--iters', type=int, default=200000)
parser.add_argument('--ema', type=float, default=0.9999)
parser.add_argument('--amp', action='store_true')
parser.add_argument('--sample_every', type=int, default=5000)
parser.add_argument('--n_sample_steps', type=int, default=50)
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device('cuda' if use_cuda else 'cpu')

# ---------------- data
x_all = np.load(args.data, mmap_mode='r')  # N,H,W,3 uint8
ds = torch.utils.data.TensorDataset(torch.from_numpy(np.ascontiguousarray(x_all)))
sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
loader = torch.utils.data.DataLoader(ds, batch_size=args.bs, sampler=sampler, drop_last=True, num_workers=2)

# ---------------- model
class Block(nn.Module):
    def __init__(s, c, tc):
        super().__init__()
        s.n = nn.GroupNorm(8, c); s.c1 = nn.Conv2d(c, c, 3, padding=1); s.c2 = nn.Conv2d(c, c, 3, padding=1); s.t = nn.Linear(tc, c)
    def forward(s, x, te):
        h = s.c1(F.silu(s.n(x))) + s.t(te)[..., None, None]
        return x + s.c2(F.silu(h))

class VNet(nn.Module):
    def __init__(s, c=96, nb=6):
        super().__init__()
        s.tm = nn.Sequential(nn.Linear(64, 256), nn.SiLU(), nn.Linear(256, 256))
        s.i = nn.Conv2d(3, c, 3, padding=1)
        s.bs = nn.ModuleList([Block(c, 256) for _ in range(nb)])
        s.o = nn.Conv2d(c, 3, 3, padding=1)
    def forward(s, x, t):
        f = torch.exp(torch.arange(32, device=x.device) * (-math.log(1000.) / 32))
        te = s.tm(torch.cat([torch.sin(t[:, None] * 1000 * f), torch.cos(t[:, None] * 1000 * f)], 1))
        h = s.i(x)
        for b in s.bs:
            h = b(h, te)
        return s.o(h)

model = VNet().to(device)
ema = copy.deepcopy(model).requires_grad_(False)

opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.99))
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                               backward_passes_per_step=args.accum,
                               average_aggregated_gradients=True)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
ema.load_state_dict(model.state_dict())
scaler = torch.cuda.amp.GradScaler(enabled=args.amp)


def fm_loss(x1):
    x0 = torch.randn_like(x1)
    t = torch.rand(x1.shape[0], device=x1.device)
    xt = t[:, None, None, None] * x1 + (1 - t[:, None, None, None]) * x0
    with torch.autocast(device_type=device.type, enabled=args.amp):
        v = model(xt, t)
    return F.mse_loss(v.float(), x1 - x0)


@torch.no_grad()
def euler_sample(net, n, steps):
    x = torch.randn(n, 3, 64, 64, device=device)
    dt = 1.0 / steps
    for i in range(steps):
        t = torch.full((n,), i * dt, device=device)
        x = x + dt * net(x, t)
    return x.clamp(-1, 1)


it = 0
ep = 0
t0 = time.time()
while it < args.iters:
    sampler.set_epoch(ep)
    for k, (xb,) in enumerate(loader):
        xb = xb.to(device).permute(0, 3, 1, 2).float() / 127.5 - 1
        loss = fm_loss(xb) / args.accum
        scaler.scale(loss).backward()
        if (k + 1) % args.accum:
            continue
        opt.synchronize()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with opt.skip_synchronize():
            scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)
        with torch.no_grad():
            for pe, pm in zip(ema.parameters(), model.parameters()):
                pe.lerp_(pm, 1 - args.ema)
        it += 1
        if it % 100 == 0:
            l = hvd.allreduce(loss.detach() * args.accum, name='loss').item()
            if hvd.rank() == 0:
                print('it %d loss %.4f %.1f img/s' % (it, l, 100 * args.bs * args.accum * hvd.size() / (time.time() - t0)))
            t0 = time.time()
        if it % args.sample_every == 0 and hvd.rank() == 0:
            os.makedirs(args.out, exist_ok=True)
            s = euler_sample(ema, 16, args.n_sample_steps)
            np.save(os.path.join(args.out, 'samples_%07d.npy' % it), ((s + 1) * 127.5).byte().permute(0, 2, 3, 1).cpu().numpy())
            torch.save({'model': model.state_dict(), 'ema': ema.state_dict(), 'opt': opt.state_dict(), 'it': it},
                       os.path.join(args.out, 'rf_%07d.pt' % it))
        if it >= args.iters:
            break
    ep += 1
