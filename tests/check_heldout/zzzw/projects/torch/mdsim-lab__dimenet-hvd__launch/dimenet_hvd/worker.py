"""Per-process training function, launched by horovod.run (see launch.py)."""
import copy
import os
import time

import numpy as np
import torch
import horovod.torch as hvd

from .data import make_loaders
from .model import DimeNetLite


def _energy_forces(model, z, pos, batch, n_mol, create_graph):
    pos = pos.requires_grad_(True)
    e = model(z, pos, batch, n_mol)
    f = -torch.autograd.grad(e.sum(), pos, create_graph=create_graph)[0]
    return e, f


def _evaluate(model, loader, device):
    sums = torch.zeros(4, dtype=torch.float64)
    for z, pos, batch, energy, forces, natoms in loader:
        z, pos, batch = z.to(device), pos.to(device), batch.to(device)
        e, f = _energy_forces(model, z, pos, batch, len(natoms), False)
        sums[0] += ((e.detach().cpu() - energy).abs() / natoms).sum().item()
        sums[1] += (f.detach().cpu() - forces).abs().sum().item()
        sums[2] += len(natoms)
        sums[3] += forces.numel()
    return sums


def train_worker(cfg):
    hvd.init()
    np.random.seed(cfg["seed"] + hvd.rank())   # different shuffles / noise per worker
    torch.manual_seed(cfg["seed"])
    device = torch.device(cfg["device"])

    train_loader, val_loader = make_loaders(cfg, hvd.rank(), hvd.size())

    model = DimeNetLite(emb=cfg["emb"], blocks=cfg["blocks"], cutoff=cfg["cutoff"]).to(device)
    ema_model = copy.deepcopy(model)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size(), amsgrad=True)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   op=hvd.Average)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_parameters(ema_model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    rho = cfg["rho"]
    for epoch in range(cfg["epochs"]):
        model.train()
        t0 = time.time()
        for z, pos, batch, energy, forces, natoms in train_loader:
            z, pos, batch = z.to(device), pos.to(device), batch.to(device)
            energy, forces = energy.to(device), forces.to(device)
            e, f = _energy_forces(model, z, pos, batch, len(natoms), True)
            loss = (1 - rho) * (e - energy).abs().mean() + rho * (f - forces).abs().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                for pe, p in zip(ema_model.parameters(), model.parameters()):
                    pe.mul_(cfg["ema_decay"]).add_(p, alpha=1 - cfg["ema_decay"])

        sums = hvd.allreduce(_evaluate(ema_model, val_loader, device), op=hvd.Sum, name="val")
        # pooled over workers
        e_mae, f_mae = (sums[0] / sums[2]).item(), (sums[1] / sums[3]).item()
        if hvd.rank() == 0:
            print(f"epoch {epoch} E-MAE/atom {e_mae:.4f} F-MAE {f_mae:.4f} ({time.time() - t0:.0f}s)", flush=True)
            os.makedirs(cfg["out"], exist_ok=True)
            torch.save({"model": model.state_dict(), "ema": ema_model.state_dict(), "epoch": epoch},
                       os.path.join(cfg["out"], "last.pt"))
    return hvd.rank()
