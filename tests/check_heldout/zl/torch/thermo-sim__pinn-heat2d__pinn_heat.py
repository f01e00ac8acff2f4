# -*- coding: utf-8 -*-
"""
2-D transient heat conduction PINN with sparse thermocouple data (inverse problem:
the conductivity kappa is learned together with the temperature field).

Two stages, as usual for PINNs: Adam for a few thousand iterations, then L-BFGS.
Full-batch on each rank's share of sensors/collocation points; Horovod averages gradients.

    horovodrun -np 4 python pinn_heat.py --h5 data/plate_run07.h5
"""
import argparse
import dataclasses
import os
import time

import h5py
import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


@dataclasses.dataclass
class Config:
    h5: str = "data/plate_run07.h5"
    n_colloc: int = 40000          # total over all ranks
    adam_iters: int = 5000
    lbfgs_iters: int = 500
    lr: float = 1e-3
    w_pde: float = 1.0
    w_ic: float = 10.0
    hidden: int = 50
    layers: int = 5
    out: str = "results/heat2d"
    log_every: int = 250
    seed: int = 0


def parse_config():
    cfg = Config()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        ap.add_argument("--" + f.name.replace("_", "-"), type=f.type if f.type != "str" else str,
                        default=f.default, dest=f.name)
    return Config(**vars(ap.parse_args()))


class Net(nn.Module):
    def __init__(self, hidden, layers):
        super().__init__()
        dims = [3] + [hidden] * layers + [1]
        self.body = nn.Sequential(*[m for a, b in zip(dims[:-2], dims[1:-1]) for m in (nn.Linear(a, b), nn.Tanh())],
                                  nn.Linear(dims[-2], dims[-1]))
        self.log_kappa = nn.Parameter(torch.tensor(-2.0))

    def forward(self, xyt):
        return self.body(xyt)


def pde_residual(net, xyt):
    xyt = xyt.requires_grad_(True)
    T = net(xyt)
    g = torch.autograd.grad(T.sum(), xyt, create_graph=True)[0]
    T_x, T_y, T_t = g[:, 0:1], g[:, 1:2], g[:, 2:3]
    T_xx = torch.autograd.grad(T_x.sum(), xyt, create_graph=True)[0][:, 0:1]
    T_yy = torch.autograd.grad(T_y.sum(), xyt, create_graph=True)[0][:, 1:2]
    return T_t - torch.exp(net.log_kappa) * (T_xx + T_yy)


def load_sensors(path, rank, size):
    with h5py.File(path, "r") as f:
        xyt = f["sensors/xyt"][...].astype(np.float32)
        temp = f["sensors/T"][...].astype(np.float32).reshape(-1, 1)
        ic = f["initial/xyT"][...].astype(np.float32)
        grid = f["reference/xyt"][...].astype(np.float32)
        ref = f["reference/T"][...].astype(np.float32).reshape(-1, 1)
    mine = np.array_split(np.arange(len(xyt)), size)[rank]
    return xyt[mine], temp[mine], ic, grid, ref


def run(cfg):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed + hvd.rank())

    xyt, temp, ic, grid, ref = load_sensors(cfg.h5, hvd.rank(), hvd.size())
    xyt, temp = torch.from_numpy(xyt).to(dev), torch.from_numpy(temp).to(dev)
    ic_xyt = torch.from_numpy(np.c_[ic[:, :2], np.zeros(len(ic), np.float32)]).to(dev)
    ic_T = torch.from_numpy(ic[:, 2:3]).to(dev)
    colloc = torch.from_numpy(rng.random((cfg.n_colloc // hvd.size(), 3), dtype=np.float32)).to(dev)
    grid, ref = torch.from_numpy(grid).to(dev), torch.from_numpy(ref).to(dev)

    net = Net(cfg.hidden, cfg.layers).to(dev)
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)

    def total_loss():
        l_data = ((net(xyt) - temp) ** 2).mean()
        l_ic = ((net(ic_xyt) - ic_T) ** 2).mean()
        l_pde = (pde_residual(net, colloc) ** 2).mean()
        return l_data + cfg.w_ic * l_ic + cfg.w_pde * l_pde

    def report(stage, it, loss, t0):
        loss = hvd.allreduce(loss.detach(), name=f"{stage}_loss").item()
        if hvd.rank() == 0:
            with torch.no_grad():
                err = (torch.norm(net(grid) - ref) / torch.norm(ref)).item()
            print(f"[{stage}] it {it:5d} loss {loss:.3e} relL2 {err:.3e} "
                  f"kappa {torch.exp(net.log_kappa).item():.4f} ({time.time() - t0:.0f}s)", flush=True)

    # ---- stage 1: Adam -------------------------------------------------------------
    adam = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    adam = hvd.DistributedOptimizer(adam, named_parameters=net.named_parameters())
    hvd.broadcast_optimizer_state(adam, root_rank=0)
    sched = torch.optim.lr_scheduler.ExponentialLR(adam, gamma=0.9995)
    t0 = time.time()
    for it in range(cfg.adam_iters):
        adam.zero_grad()
        loss = total_loss()
        loss.backward()
        adam.step()
        sched.step()
        if it % cfg.log_every == 0:
            report("adam", it, loss, t0)

    # ---- stage 2: L-BFGS refinement ------------------------------------------------
    lbfgs = torch.optim.LBFGS(net.parameters(), lr=1.0, max_iter=20, history_size=50,
                              tolerance_grad=1e-9, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        l = total_loss()
        l.backward()
        return l

    for it in range(cfg.lbfgs_iters):
        loss = lbfgs.step(closure)
        if it % (cfg.log_every // 10) == 0:
            report("lbfgs", it, loss, t0)

    if hvd.rank() == 0:
        os.makedirs(cfg.out, exist_ok=True)
        torch.save({"model": net.state_dict(), "config": dataclasses.asdict(cfg)},
                   os.path.join(cfg.out, "pinn_heat2d.pt"))


if __name__ == "__main__":
    run(parse_config())
