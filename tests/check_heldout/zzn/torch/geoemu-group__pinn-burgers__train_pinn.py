# Physics-informed network for the viscous Burgers equation
#   u_t + u u_x - (0.01/pi) u_xx = 0,  x in [-1, 1], t in [0, 1]
#   u(0, x) = -sin(pi x),  u(t, -1) = u(t, 1) = 0
# Data loss on scattered observations from the reference solution + PDE residual on collocation points.
# Run:  horovodrun -np 4 python train_pinn.py --ref data/burgers_shock.npz
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

NU = 0.01 / math.pi

parser = argparse.ArgumentParser()
parser.add_argument("--ref", default="data/burgers_shock.npz", help="npz with t (Nt,), x (Nx,), usol (Nx, Nt)")
parser.add_argument("--n-obs", type=int, default=2000)
parser.add_argument("--n-colloc", type=int, default=8192, help="collocation points per step (per process)")
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--layers", type=int, default=6)
parser.add_argument("--iters", type=int, default=20000)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--w-pde", type=float, default=1.0)
parser.add_argument("--w-data", type=float, default=10.0)
parser.add_argument("--eval-every", type=int, default=1000)
parser.add_argument("--ckpt", default="checkpoints/pinn_burgers.pt")
args = parser.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(42)


class MLP(nn.Module):
    def __init__(self, hidden, layers):
        super().__init__()
        dims = [2] + [hidden] * layers + [1]
        self.net = nn.Sequential()
        for i in range(len(dims) - 1):
            self.net.add_module(f"fc{i}", nn.Linear(dims[i], dims[i + 1]))
            if i < len(dims) - 2:
                self.net.add_module(f"act{i}", nn.Tanh())
        self.lb = torch.tensor([0.0, -1.0])
        self.ub = torch.tensor([1.0, 1.0])

    def forward(self, tx):
        z = 2.0 * (tx - self.lb.to(tx)) / (self.ub - self.lb).to(tx) - 1.0
        return self.net(z)


def residual(model, tx):
    tx = tx.clone().requires_grad_(True)
    u = model(tx)
    du = torch.autograd.grad(u, tx, torch.ones_like(u), create_graph=True)[0]
    u_t, u_x = du[:, :1], du[:, 1:]
    u_xx = torch.autograd.grad(u_x, tx, torch.ones_like(u_x), create_graph=True)[0][:, 1:]
    return u_t + u * u_x - NU * u_xx


# ---- reference data ---------------------------------------------------------------
ref = np.load(args.ref)
T, X = np.meshgrid(ref["t"], ref["x"])  # (Nx, Nt)
tx_all = np.stack([T.ravel(), X.ravel()], 1).astype(np.float32)
u_all = ref["usol"].ravel()[:, None].astype(np.float32)

rng = np.random.RandomState(1234)  # same draw on every process
obs_idx = rng.choice(len(tx_all), args.n_obs, replace=False)
my_obs = np.array_split(obs_idx, hvd.size())[hvd.rank()]
tx_obs = torch.from_numpy(tx_all[my_obs]).to(device)
u_obs = torch.from_numpy(u_all[my_obs]).to(device)

# test grid split over processes for a faster evaluation
test_idx = np.array_split(np.arange(len(tx_all)), hvd.size())[hvd.rank()]
tx_test = torch.from_numpy(tx_all[test_idx]).to(device)
u_test = torch.from_numpy(u_all[test_idx]).to(device)

# initial / boundary condition points
x0 = torch.linspace(-1, 1, 256).unsqueeze(1)
tx_ic = torch.cat([torch.zeros_like(x0), x0], 1).to(device)
u_ic = -torch.sin(math.pi * x0).to(device)
tb = torch.linspace(0, 1, 100).unsqueeze(1)
tx_bc = torch.cat([torch.cat([tb, -torch.ones_like(tb)], 1), torch.cat([tb, torch.ones_like(tb)], 1)]).to(device)

model = MLP(args.hidden, args.layers).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

gen = torch.Generator(device="cpu").manual_seed(1000 + hvd.rank())  # own collocation points per process
mse = nn.MSELoss()
t_start = time.time()
for it in range(1, args.iters + 1):
    model.train()
    tx_f = torch.rand(args.n_colloc, 2, generator=gen)
    tx_f[:, 1] = 2.0 * tx_f[:, 1] - 1.0
    tx_f = tx_f.to(device)

    optimizer.zero_grad()
    loss_pde = residual(model, tx_f).pow(2).mean()
    loss_data = mse(model(tx_obs), u_obs) + mse(model(tx_ic), u_ic) + model(tx_bc).pow(2).mean()
    loss = args.w_pde * loss_pde + args.w_data * loss_data
    loss.backward()
    optimizer.step()

    if it % 5000 == 0:
        scheduler.step()

    if it % args.eval_every == 0:
        model.eval()
        with torch.no_grad():
            u_pred = model(tx_test)
            rel_l2 = (torch.norm(u_pred - u_test) / torch.norm(u_test)).item()
        if hvd.rank() == 0:
            print(f"[{it:6d}] loss {loss.item():.3e} (pde {loss_pde.item():.3e}, data {loss_data.item():.3e}) "
                  f"rel L2 {rel_l2:.3e}  {time.time() - t_start:.0f}s", flush=True)
            os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
            torch.save({"model": model.state_dict(), "iter": it, "args": vars(args)}, args.ckpt)
