"""Unconditional LiDAR range-image GAN (hinge loss, spectral-norm D), Horovod data parallel."""
import argparse
import os
import time

import torch
import horovod.torch as hvd

from lidargan.builder import build_models
from lidargan.data import make_loader
from lidargan.losses import d_hinge, g_hinge
from lidargan.nets import requires_grad, sample
from lidargan.utils import save_state, seed_all


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/datasets/kitti_range")
    p.add_argument("--out", default="checkpoints/lidargan")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr-g", type=float, default=1e-4)
    p.add_argument("--lr-d", type=float, default=4e-4)
    p.add_argument("--z-dim", type=int, default=128)
    p.add_argument("--g-ch", type=int, default=64)
    p.add_argument("--d-ch", type=int, default=64)
    p.add_argument("--n-critic", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--save-every", type=int, default=10)
    return p.parse_args()


def main():
    cfg = parse()
    hvd.init()
    # different noise and augmentation per worker
    seed_all(cfg.seed + hvd.rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    loader = make_loader(cfg.data, cfg.batch_size, hvd.rank(), hvd.size())
    netG, netD = build_models(cfg, device)

    optG = torch.optim.Adam(netG.parameters(), lr=cfg.lr_g * hvd.size(), betas=(0.0, 0.99))
    optD = torch.optim.Adam(netD.parameters(), lr=cfg.lr_d * hvd.size(), betas=(0.0, 0.99))
    optG = hvd.DistributedOptimizer(optG, named_parameters=netG.named_parameters(prefix="G"))
    optD = hvd.DistributedOptimizer(optD, named_parameters=netD.named_parameters(prefix="D"))
    hvd.broadcast_optimizer_state(optG, root_rank=0)
    hvd.broadcast_optimizer_state(optD, root_rank=0)

    step = 0
    for epoch in range(cfg.epochs):
        loader.sampler.set_epoch(epoch)
        t0 = time.time()
        for real in loader:
            real = real.to(device, non_blocking=True)
            b = real.size(0)

            # --- critic
            requires_grad(netD, True)
            z = torch.randn(b, cfg.z_dim, device=device)
            with torch.no_grad():
                fake = netG(z)
            optD.zero_grad()
            lossD = d_hinge(netD(real), netD(fake))
            lossD.backward()
            optD.step()

            # --- generator (D frozen so its hooks do not fire)
            if step % cfg.n_critic == 0:
                requires_grad(netD, False)
                optG.zero_grad()
                lossG = g_hinge(netD(netG(torch.randn(b, cfg.z_dim, device=device))))
                lossG.backward()
                optG.step()

            if step % cfg.log_every == 0:
                losses = hvd.allreduce(torch.stack([lossD.detach(), lossG.detach()]), name="gan_losses")
                if hvd.rank() == 0:
                    print(f"[{epoch}/{cfg.epochs}] step {step} D {losses[0]:.4f} G {losses[1]:.4f} "
                          f"{time.time() - t0:.1f}s")
            step += 1

        if hvd.rank() == 0 and (epoch + 1) % cfg.save_every == 0:
            save_state(os.path.join(cfg.out, f"gan_{epoch + 1:04d}.pt"), netG=netG, netD=netD,
                       optG=optG, optD=optD, epoch=epoch)
            torch.save(sample(netG, 16, cfg.z_dim, device).cpu(), os.path.join(cfg.out, f"samples_{epoch + 1:04d}.pt"))


if __name__ == "__main__":
    main()
