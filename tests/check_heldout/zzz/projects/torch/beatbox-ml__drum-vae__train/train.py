#!/usr/bin/env python3
# Fine-tune the drum one-shot VAE on a new kit, N GPUs with Horovod:
#   horovodrun -np 4 python train.py --config drumvae.ini
import argparse
import configparser
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from drumvae import DrumVAE, ckpt
from drumvae.dataset import DrumHits
from drumvae.device import get_device
from drumvae.model import elbo_terms


def load_config(path):
    cp = configparser.ConfigParser()
    if not cp.read(path):
        raise FileNotFoundError(path)
    return cp


def kl_beta(epoch, cfg):
    warm = cfg.getint("train", "beta_warmup_epochs")
    return cfg.getfloat("train", "beta_max") * min(1.0, epoch / max(warm, 1))


def run_epoch(model, loader, optimizer, beta, device, train=True):
    model.train(train)
    rec_sum = kl_sum = 0.0
    n = 0
    for x in loader:
        x = x.to(device)
        with torch.set_grad_enabled(train):
            recon, mu, logvar = model(x)
            rec, kl = elbo_terms(x, recon, mu, logvar)
            loss = rec + beta * kl
        if train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        rec_sum += rec.item()
        kl_sum += kl.item()
        n += 1
    stats = torch.tensor([rec_sum / max(n, 1), kl_sum / max(n, 1)])
    return hvd.allreduce(stats, name="train_stats" if train else "valid_stats")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="drumvae.ini")
    ap.add_argument("--no-init", action="store_true", help="train from scratch")
    args = ap.parse_args()
    cfg = load_config(args.config)

    hvd.init()
    device = get_device()
    torch.manual_seed(0)

    root = cfg.get("data", "root")
    train_set, valid_set = DrumHits(root, "train"), DrumHits(root, "valid")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    valid_sampler = DistributedSampler(valid_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    batch_size = cfg.getint("train", "batch_size")
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, drop_last=True,
                              num_workers=4)
    valid_loader = DataLoader(valid_set, batch_size=batch_size, sampler=valid_sampler)

    model = DrumVAE(z_dim=cfg.getint("model", "z_dim")).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("train", "lr") * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    # pretrained weights are on NFS: read them once, on the first worker
    init_from = cfg.get("model", "init_from", fallback="")
    if init_from and not args.no_init and hvd.rank() == 0:
        missing, unexpected = ckpt.load_weights(init_from, model)
        print(f"loaded {init_from}: {len(missing)} missing, {len(unexpected)} unexpected keys")

    out_dir = cfg.get("train", "out_dir")
    best = float("inf")
    for epoch in range(cfg.getint("train", "epochs")):
        train_sampler.set_epoch(epoch)
        beta = kl_beta(epoch, cfg)
        tr = run_epoch(model, train_loader, optimizer, beta, device, train=True)
        va = run_epoch(model, valid_loader, optimizer, beta, device, train=False)
        valid_loss = (va[0] + beta * va[1]).item()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} beta {beta:.2f} train rec {tr[0]:.3f} kl {tr[1]:.3f} | "
                  f"valid rec {va[0]:.3f} kl {va[1]:.3f}")
            ckpt.save(os.path.join(out_dir, "last.pt"), model, optimizer, epoch)
            if valid_loss < best:
                best = valid_loss
                ckpt.save(os.path.join(out_dir, "best.pt"), model, optimizer, epoch)


if __name__ == "__main__":
    main()
