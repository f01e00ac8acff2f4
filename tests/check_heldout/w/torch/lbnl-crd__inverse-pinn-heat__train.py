"""Inverse PINN for 2-D heat conduction: fit u(x,y,t) to thermocouple data and recover kappa.

    srun -N 2 --ntasks-per-node 4 python train.py --config configs/heat2d.yaml
"""
import argparse
import math

import horovod.torch as hvd
import torch
import yaml

from pinn import FieldMLP, HeatResidual
from pinn.io import load_observations, save_checkpoint
from pinn.optim import build_optimizer


def sample_interior(n, generator):
    return torch.rand(n, 3, generator=generator)


def sample_boundary(n, generator):
    pts = torch.rand(n, 3, generator=generator)
    side = torch.randint(0, 4, (n,), generator=generator)
    pts[side == 0, 0], pts[side == 1, 0] = 0.0, 1.0
    pts[side == 2, 1], pts[side == 3, 1] = 0.0, 1.0
    return pts


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/heat2d.yaml")
    p.add_argument("--epochs", type=int, default=None)
    args = p.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    epochs = args.epochs or cfg["optim"]["epochs"]

    hvd.init()
    torch.manual_seed(2024)
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    # observations: strided split of the sensor table; collocation points: drawn independently per rank
    obs_x, obs_u = load_observations(cfg["data"]["observations"])
    n_keep = len(obs_x) // hvd.size() * hvd.size()  # same number of rows, hence steps, on every rank
    obs_x, obs_u = obs_x[:n_keep], obs_u[:n_keep]
    obs_x, obs_u = obs_x[hvd.rank()::hvd.size()].to(device), obs_u[hvd.rank()::hvd.size()].to(device)
    gen = torch.Generator().manual_seed(1000 + hvd.rank())
    n_col = cfg["data"]["n_collocation"] // hvd.size()
    n_bc = cfg["data"]["n_boundary"] // hvd.size()

    model = FieldMLP(cfg["model"]["width"], cfg["model"]["depth"]).to(device)
    physics = HeatResidual().to(device)
    optimizer = build_optimizer(model, physics, lr=cfg["optim"]["lr"] * hvd.size(),
                                kappa_lr=cfg["optim"]["kappa_lr"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_parameters(physics.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    w_pde, w_bc = cfg["optim"]["w_pde"], cfg["optim"]["w_bc"]
    bs = cfg["optim"]["batch_obs"]
    steps = math.ceil(len(obs_x) / bs)
    for epoch in range(epochs):
        xc = sample_interior(n_col, gen).to(device)
        xb = sample_boundary(n_bc, gen).to(device)
        for i in range(steps):
            optimizer.zero_grad()
            sl = slice(i * bs, (i + 1) * bs)
            loss_data = torch.mean((model(obs_x[sl]) - obs_u[sl]) ** 2)
            loss_pde = torch.mean(physics(model, xc) ** 2)
            loss_bc = torch.mean(model(xb) ** 2)
            loss = loss_data + w_pde * loss_pde + w_bc * loss_bc
            loss.backward()
            optimizer.step()

        if epoch % cfg["output"]["every"] == 0 or epoch == epochs - 1:
            total = hvd.allreduce(loss.detach(), name="loss").item()
            if hvd.rank() == 0:
                print(f"epoch {epoch:5d}  loss {total:.3e}  kappa {physics.kappa.item():.5f}", flush=True)
            save_checkpoint(cfg["output"]["dir"], epoch, model, physics, optimizer)


if __name__ == "__main__":
    main()
