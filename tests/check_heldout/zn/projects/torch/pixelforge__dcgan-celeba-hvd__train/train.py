#!/usr/bin/env python
"""DCGAN on CelebA 64x64, data-parallel with Horovod.

    horovodrun -np 4 python train.py --dataroot /data/celeba --epochs 25

The dataroot must be an ImageFolder layout (celeba/img_align_celeba/*.jpg) and
contain a `val` split made by scripts/make_val_split.sh.
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from dcgan.models import Generator, Discriminator, weights_init, set_requires_grad
from dcgan.data import build_loader
from dcgan.dist import sync_state, save_checkpoint, load_checkpoint
from dcgan.metrics import FeatureStats, fid_proxy, save_grid


def get_args():
    p = argparse.ArgumentParser(description="DCGAN + Horovod")
    p.add_argument("--dataroot", default="data/celeba")
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--ngf", type=int, default=64)
    p.add_argument("--ndf", type=int, default=64)
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--beta1", type=float, default=0.5)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="runs/dcgan")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--no-cuda", action="store_true")
    return p.parse_args()


@torch.no_grad()
def evaluate(netG, netD, loader, nz, device):
    """Held-out D(real)/D(fake) and a cheap FID proxy on discriminator features."""
    netG.eval(); netD.eval()
    real_stats, fake_stats = FeatureStats(), FeatureStats()
    d_real, d_fake, n = 0.0, 0.0, 0
    for real, _ in loader:
        real = real.to(device)
        z = torch.randn(real.size(0), nz, 1, 1, device=device)
        fake = netG(z)
        out_r, feat_r = netD(real, return_features=True)
        out_f, feat_f = netD(fake, return_features=True)
        d_real += out_r.sum().item(); d_fake += out_f.sum().item(); n += real.size(0)
        real_stats.update(feat_r); fake_stats.update(feat_f)
    netG.train(); netD.train()
    return {"D(x)": d_real / n, "D(G(z))": d_fake / n, "fid_proxy": fid_proxy(real_stats, fake_stats)}


def main():
    args = get_args()
    hvd.init()
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(1234 + hvd.rank())

    train_loader, train_sampler = build_loader(args.dataroot, "train", args.image_size,
                                               args.batch_size, args.workers)
    val_loader, _ = build_loader(args.dataroot, "val", args.image_size, args.batch_size, args.workers)

    netG = Generator(args.nz, args.ngf).to(device)
    netD = Discriminator(args.ndf).to(device)
    netG.apply(weights_init)
    netD.apply(weights_init)

    # linear scaling rule: the effective batch is batch_size * hvd.size()
    lr = args.lr * hvd.size()
    optG = torch.optim.Adam(netG.parameters(), lr=lr, betas=(args.beta1, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=lr, betas=(args.beta1, 0.999))

    start_epoch, best_fid = 0, float("inf")
    ckpt_path = os.path.join(args.out, "last.pt")
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
        start_epoch, best_fid = load_checkpoint(ckpt_path, netG, netD, optG, optD)
    start_epoch, best_fid = hvd.broadcast_object((start_epoch, best_fid), root_rank=0, name="resume")
    sync_state(netG, netD, optG, optD)

    optG = hvd.DistributedOptimizer(optG, named_parameters=netG.named_parameters(prefix="G"))
    optD = hvd.DistributedOptimizer(optD, named_parameters=netD.named_parameters(prefix="D"))

    criterion = nn.BCEWithLogitsLoss()
    fixed_noise = torch.randn(64, args.nz, 1, 1, device=device)

    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for i, (real, _) in enumerate(train_loader):
            real = real.to(device)
            b = real.size(0)
            ones = torch.ones(b, device=device)
            zeros = torch.zeros(b, device=device)

            # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
            optD.zero_grad()
            z = torch.randn(b, args.nz, 1, 1, device=device)
            fake = netG(z)
            errD = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
            errD.backward()
            optD.step()

            # (2) update G: maximize log(D(G(z))); D frozen so its hooks stay quiet
            set_requires_grad(netD, False)
            optG.zero_grad()
            errG = criterion(netD(fake), ones)
            errG.backward()
            optG.step()
            set_requires_grad(netD, True)

            if i % args.log_every == 0:
                d_avg = hvd.allreduce(errD.detach(), name="errD").item()
                g_avg = hvd.allreduce(errG.detach(), name="errG").item()
                if hvd.rank() == 0:
                    print(f"[{epoch}/{args.epochs}][{i}/{len(train_loader)}] "
                          f"loss_D {d_avg:.4f} loss_G {g_avg:.4f}", flush=True)

        metrics = evaluate(netG, netD, val_loader, args.nz, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch} ({time.time() - t0:.0f}s) "
                  + " ".join(f"{k} {v:.4f}" for k, v in metrics.items()), flush=True)
            os.makedirs(args.out, exist_ok=True)
            with torch.no_grad():
                save_grid(netG(fixed_noise), os.path.join(args.out, f"samples_{epoch:03d}.png"))
            best_fid = min(best_fid, metrics["fid_proxy"])
            save_checkpoint(ckpt_path, epoch + 1, best_fid, netG, netD, optG, optD)
            if metrics["fid_proxy"] <= best_fid:
                torch.save(netG.state_dict(), os.path.join(args.out, "G_best.pt"))


if __name__ == "__main__":
    main()
