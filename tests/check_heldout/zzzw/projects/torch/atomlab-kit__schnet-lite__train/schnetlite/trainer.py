import copy
import os
import time

import torch
import horovod.torch as hvd

from .dist_utils import allreduce_sums, log


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = copy.deepcopy(model).eval()
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for s, p in zip(self.shadow.parameters(), model.parameters()):
            s.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


def energy_and_forces(model, batch, create_graph):
    pos = batch["pos"].requires_grad_(True)
    energy = model(batch["z"], pos, batch["batch"], len(batch["n_atoms"]))
    grad = torch.autograd.grad(energy.sum(), pos, create_graph=create_graph)[0]
    return energy, -grad


class Trainer:
    def __init__(self, model, optimizer, args, device):
        self.model = model
        self.optimizer = optimizer
        self.args = args
        self.device = device
        self.ema = EMA(model, args.ema_decay)
        self.base_lr = optimizer.param_groups[0]["lr"]
        self.step = 0

    def _to(self, batch):
        return {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}

    def _adjust_lr(self, epoch, it, n_iter):
        if epoch < self.args.warmup_epochs:
            frac = (epoch * n_iter + it + 1) / (self.args.warmup_epochs * n_iter)
            for g in self.optimizer.param_groups:
                g["lr"] = self.base_lr * frac

    def train_epoch(self, loader, epoch):
        self.model.train()
        n_iter = len(loader)
        t0 = time.time()
        for it, batch in enumerate(loader):
            batch = self._to(batch)
            self._adjust_lr(epoch, it, n_iter)
            self.optimizer.zero_grad()
            e_pred, f_pred = energy_and_forces(self.model, batch, create_graph=True)
            e_loss = torch.mean(((e_pred - batch["energy"]) / batch["n_atoms"]) ** 2)
            f_loss = torch.mean((f_pred - batch["forces"]) ** 2)
            loss = self.args.energy_weight * e_loss + self.args.force_weight * f_loss
            loss.backward()
            self.optimizer.step()
            self.ema.update(self.model)
            self.step += 1
            if it % 50 == 0:
                log(f"ep {epoch} it {it}/{n_iter} loss {loss.item():.4f} ({time.time() - t0:.1f}s)")

    def evaluate(self, loader):
        model = self.ema.shadow
        e_abs, f_abs, n_mol, n_comp = 0.0, 0.0, 0, 0
        for batch in loader:
            batch = self._to(batch)
            e_pred, f_pred = energy_and_forces(model, batch, create_graph=False)
            e_abs += ((e_pred.detach() - batch["energy"]).abs() / batch["n_atoms"]).sum().item()
            f_abs += (f_pred.detach() - batch["forces"]).abs().sum().item()
            n_mol += len(batch["n_atoms"])
            n_comp += batch["forces"].numel()
        e_abs, f_abs, n_mol, n_comp = allreduce_sums([e_abs, f_abs, n_mol, n_comp], self.device)
        return {"energy_mae_per_atom": e_abs / n_mol, "force_mae": f_abs / n_comp}

    def save(self, path, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "ema": self.ema.shadow.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
