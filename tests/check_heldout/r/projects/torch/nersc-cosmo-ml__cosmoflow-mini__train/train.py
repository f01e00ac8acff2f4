#!/usr/bin/env python
"""CosmoFlow-style regression of cosmological parameters from 3D dark-matter density cubes.

    #SBATCH -N 4 --ntasks-per-node=4 --gpus-per-task=1 -C gpu
    srun python train.py --epochs 30

One Horovod rank per GPU. The global batch is fixed (cosmo/config.py: global_batch) and split
over the ranks, so the learning rate is the one tuned for that global batch whatever the job size.
"""
import argparse

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from cosmo import data, utils
from cosmo.config import RunConfig
from cosmo.model import CosmoNet


def parse_args():
    cfg = RunConfig()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-file", default=cfg.data_file)
    p.add_argument("--out-dir", default=cfg.out_dir)
    p.add_argument("--epochs", type=int, default=cfg.epochs)
    p.add_argument("--global-batch", type=int, default=cfg.global_batch)
    a = p.parse_args()
    cfg.data_file, cfg.out_dir, cfg.epochs, cfg.global_batch = a.data_file, a.out_dir, a.epochs, a.global_batch
    return cfg


def run_epoch(model, loader, device, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total, nbatch = 0.0, 0
    with torch.set_grad_enabled(training):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = F.mse_loss(model(x), y)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item()
            nbatch += 1
    return total / max(nbatch, 1)


def main():
    cfg = parse_args()
    hvd.init()
    device = utils.setup_device(cfg.threads)
    torch.manual_seed(cfg.seed)

    local_batch = cfg.global_batch // hvd.size()
    train_idx, val_idx = data.split_indices(cfg.data_file, cfg.val_fraction, cfg.seed)
    train_loader = data.make_loader(cfg.data_file, train_idx, hvd.rank(), hvd.size(), local_batch,
                                    shuffle=True, seed=cfg.seed)
    val_loader = data.make_loader(cfg.data_file, val_idx, hvd.rank(), hvd.size(), local_batch,
                                  shuffle=False)
    utils.log(f"{hvd.size()} ranks x {local_batch} cubes per step, {len(train_loader)} steps per epoch")

    model = CosmoNet(cfg.n_filters, len(cfg.target_names), cfg.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(cfg.epochs):
        utils.set_lr(optimizer, utils.step_lr(cfg.lr, epoch, cfg.lr_decay_epochs, cfg.lr_decay_factor))
        train_loss = run_epoch(model, train_loader, device, optimizer)
        val_loss = run_epoch(model, val_loader, device)
        train_loss = utils.global_mean(train_loss, "train_loss")
        val_loss = utils.global_mean(val_loss, "val_loss")
        utils.log(f"epoch {epoch}: train mse {train_loss:.5f}  val mse {val_loss:.5f}")
        if (epoch + 1) % cfg.ckpt_every == 0 or epoch + 1 == cfg.epochs:
            utils.save_checkpoint(model, optimizer, epoch, cfg.out_dir)


if __name__ == "__main__":
    main()
