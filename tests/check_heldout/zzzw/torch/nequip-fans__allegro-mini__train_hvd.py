# allegro-mini: strictly local pair-feature potential, MD17 style data (one molecule, many frames)
# run:  horovodrun -np 8 -H host1:4,host2:4 python train_hvd.py --data aspirin.npz
import os, sys, time, argparse, math
import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument('--data', type=str, default='md17_aspirin.npz')
p.add_argument('--n-train', type=int, default=950)
p.add_argument('--n-val', type=int, default=50)
p.add_argument('--bs', type=int, default=5)
p.add_argument('--lr', type=float, default=2e-3)
p.add_argument('--epochs', type=int, default=1000)
p.add_argument('--rc', type=float, default=4.0)
p.add_argument('--lam-e', type=float, default=1.0)
p.add_argument('--lam-f', type=float, default=1000.0)
p.add_argument('--ema', type=float, default=0.99)
p.add_argument('--outdir', type=str, default='./results')
p.add_argument('--seed', type=int, default=0)
args = p.parse_args()

hvd.init()
torch.manual_seed(args.seed + hvd.rank())
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
dev = torch.device('cuda' if cuda else 'cpu')

# ---------------- data ----------------
raw = np.load(args.data)
Z = torch.from_numpy(raw['z']).long()
R_all = torch.from_numpy(raw['R']).float()
E_all = torch.from_numpy(raw['E']).float().view(-1)
F_all = torch.from_numpy(raw['F']).float()
n_atoms = Z.shape[0]

rng = np.random.RandomState(args.seed)         # same split on every rank
perm = rng.permutation(len(E_all))
tr_idx = perm[:args.n_train]
va_idx = perm[args.n_train:args.n_train + args.n_val]
# each worker takes every size-th frame
tr_idx = tr_idx[hvd.rank()::hvd.size()]
tr_idx = tr_idx[:args.n_train // hvd.size()]  # same number of steps everywhere
va_idx = va_idx[hvd.rank()::hvd.size()]
va_idx = va_idx[:args.n_val // hvd.size()]    # equal count on every rank

e_mean = E_all[tr_idx].mean()
e_mean = hvd.allreduce(e_mean, name='e_mean')  # shift so every worker uses the same shift
e_scale = F_all[tr_idx].std()
e_scale = hvd.allreduce(e_scale, name='e_scale')


def neighbors(pos, rc):
    # pos: (B, A, 3) -> pair indices inside each frame
    B, A, _ = pos.shape
    with torch.no_grad():
        d = torch.cdist(pos, pos)
        m = (d < rc) & ~torch.eye(A, dtype=torch.bool, device=pos.device)
    b, i, j = m.nonzero(as_tuple=True)
    return b, i, j


class BesselRBF(nn.Module):
    def __init__(self, n, rc):
        super().__init__()
        self.freq = nn.Parameter(torch.arange(1, n + 1).float() * math.pi)
        self.rc = rc

    def forward(self, r):
        x = r[:, None] / self.rc
        env = 1 - 6 * x ** 5 + 15 * x ** 4 - 10 * x ** 3      # polynomial envelope
        return math.sqrt(2 / self.rc) * torch.sin(self.freq * x) / r[:, None] * env


class AllegroMini(nn.Module):
    def __init__(self, n_species=10, F=64, n_rbf=8, layers=2, rc=4.0):
        super().__init__()
        self.rc = rc
        self.species = {1: 0, 6: 1, 7: 2, 8: 3}
        self.emb = nn.Embedding(n_species, F)
        self.rbf = BesselRBF(n_rbf, rc)
        self.pair_in = nn.Linear(2 * F + n_rbf, F)
        self.layers = nn.ModuleList([nn.Sequential(nn.Linear(F + 3, F), nn.SiLU(), nn.Linear(F, F))
                                     for _ in range(layers)])
        self.out = nn.Linear(F, 1)

    def forward(self, z, pos):
        b, i, j = neighbors(pos, self.rc)
        vec = pos[b, j] - pos[b, i]
        r = vec.norm(dim=-1)
        u = vec / r[:, None]
        h = self.emb(z)
        x = torch.nn.functional.silu(self.pair_in(torch.cat([h[i], h[j], self.rbf(r)], -1)))
        for lay in self.layers:
            x = x + lay(torch.cat([x, u], -1))
        pair_e = self.out(x).squeeze(-1)
        E = torch.zeros(pos.shape[0], device=pos.device).index_add_(0, b, pair_e)
        return E


z_idx = torch.tensor([{1: 0, 6: 1, 7: 2, 8: 3}.get(int(a), 4) for a in Z], device=dev)
model = AllegroMini(rc=args.rc).to(dev)

if hvd.rank() == 0:
    print(model)
    print('params:', sum(p.numel() for p in model.parameters()))

opt = torch.optim.Adam(model.parameters(), lr=args.lr)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=200, gamma=0.5)

ema = torch.optim.swa_utils.AveragedModel(
    model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(args.ema))
# make sure all workers start from the same weights
hvd.broadcast_parameters(ema.state_dict(), root_rank=0)


def predict(m, R, train):
    R = R.clone().requires_grad_(True)
    E = m(z_idx, R) * e_scale + e_mean
    F = -torch.autograd.grad(E.sum(), R, create_graph=train)[0]
    return E, F


os.makedirs(args.outdir, exist_ok=True)
best = 1e9
for epoch in range(args.epochs):
    model.train()
    ep_rng = np.random.RandomState(epoch)
    order = tr_idx[ep_rng.permutation(len(tr_idx))]
    t0 = time.time()
    for k in range(0, len(order) - args.bs + 1, args.bs):
        bi = order[k:k + args.bs]
        R, E, F = R_all[bi].to(dev), E_all[bi].to(dev), F_all[bi].to(dev)
        Ep, Fp = predict(model, R, True)
        loss = args.lam_e * ((Ep - E) / n_atoms).pow(2).mean() + args.lam_f * (Fp - F).pow(2).mean() / 3
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
    sched.step()

    # validation with the EMA weights
    ema.eval()
    e_err, f_err = 0., 0.
    for k in range(0, len(va_idx), args.bs):
        bi = va_idx[k:k + args.bs]
        Ep, Fp = predict(ema, R_all[bi].to(dev), False)
        e_err += (Ep.detach() - E_all[bi].to(dev)).abs().sum().item() / n_atoms
        f_err += (Fp.detach() - F_all[bi].to(dev)).abs().mean(dim=(1, 2)).sum().item()
    e_mae = hvd.allreduce(torch.tensor(e_err / len(va_idx)), name='e_mae').item()
    f_mae = hvd.allreduce(torch.tensor(f_err / len(va_idx)), name='f_mae').item()

    if hvd.rank() == 0:
        print(f'{epoch:5d}  loss {loss.item():.4e}  E/atom {e_mae:.5f}  F {f_mae:.5f}  {time.time()-t0:.1f}s')
        if f_mae < best:
            best = f_mae
            torch.save({'model': model.state_dict(), 'ema': ema.module.state_dict(),
                        'e_mean': e_mean, 'e_scale': e_scale, 'epoch': epoch},
                       os.path.join(args.outdir, 'best_model.pth'))
