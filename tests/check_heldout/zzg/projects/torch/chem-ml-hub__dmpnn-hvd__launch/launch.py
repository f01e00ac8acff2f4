#!/usr/bin/env python
"""Entry point used by our job templates (``horovodrun -np $NGPU python launch.py --data_path ...``).

``train_worker`` is also imported by the hyper-parameter sweep driver, which builds a
TrainConfig itself and calls it inside an already running Horovod job.
"""
import math

import numpy as np
import torch
import horovod.torch as hvd

from dmpnn.checkpoint import maybe_resume, save
from dmpnn.config import TrainConfig
from dmpnn.data import N_ATOM_TYPES, N_BOND_TYPES, MolGraphs, build_loader
from dmpnn.distributed import init_distributed, is_main, sum_across
from dmpnn.model import DMPNN


def split(dataset, val_fraction, seed):
    idx = np.random.RandomState(seed).permutation(len(dataset))
    n_val = int(len(idx) * val_fraction)
    return MolGraphs([dataset[i] for i in idx[n_val:]]), MolGraphs([dataset[i] for i in idx[:n_val]])


def run(model, loader, device, optimizer=None):
    model.train(optimizer is not None)
    sq_err, n = 0.0, 0
    for batch in loader:
        batch = {k: v.to(device) if torch.is_tensor(v) else v for k, v in batch.items()}
        with torch.set_grad_enabled(optimizer is not None):
            pred = model(batch)
            loss = torch.nn.functional.mse_loss(pred, batch["y"])
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        sq_err += ((pred.detach() - batch["y"]) ** 2).sum().item()
        n += batch["y"].numel()
    total_sq, total_n = sum_across(sq_err, n)
    return math.sqrt(total_sq / total_n)


def train_worker(cfg, device):
    torch.manual_seed(cfg.seed)
    train_set, val_set = split(MolGraphs.from_jsonl(cfg.data_path), cfg.val_fraction, cfg.seed)
    train_loader, train_sampler = build_loader(train_set, cfg.batch_per_rank, train=True, seed=cfg.seed)
    val_loader, _ = build_loader(val_set, cfg.batch_per_rank, train=False)

    model = DMPNN(N_ATOM_TYPES, N_BOND_TYPES, cfg.hidden, cfg.depth, cfg.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    start_epoch, best = maybe_resume(cfg, model, optimizer)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        train_rmse = run(model, train_loader, device, optimizer)
        val_rmse = run(model, val_loader, device)
        best = min(best, val_rmse)
        if is_main():
            print(f"epoch {epoch:3d} train rmse {train_rmse:.4f} val rmse {val_rmse:.4f} best {best:.4f}")
        save(cfg, model, optimizer, epoch, best)
    return best


def main():
    cfg = TrainConfig.from_cli()
    device = init_distributed()
    train_worker(cfg, device)


if __name__ == "__main__":
    main()
