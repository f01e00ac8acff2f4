"""Train WaveGAN (WGAN-GP) on seismic event windows, data-parallel with Horovod.

    mpirun -np 4 -bind-to none python train_gan.py --data /data/stead_windows --epochs 200
"""
import argparse
import os
import time

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from wavegan.data import WaveformDataset
from wavegan.models import Critic, Generator
from wavegan.utils import average_scalar, gradient_penalty, save_checkpoint, save_samples

parser = argparse.ArgumentParser(description="WaveGAN for seismograms")
parser.add_argument("--data", default="/data/stead_windows")
parser.add_argument("--out", default="runs/wavegan")
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--latent-dim", type=int, default=100)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--n-critic", type=int, default=5)
parser.add_argument("--gp-weight", type=float, default=10.0)
parser.add_argument("--min-snr", type=float, default=None)
parser.add_argument("--save-every", type=int, default=10)
parser.add_argument("--seed", type=int, default=1234)


def main():
    args = parser.parse_args()
    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if cuda else "cpu")

    dataset = WaveformDataset(args.data, min_snr=args.min_snr)
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4,
                        drop_last=True, pin_memory=cuda)

    G = Generator(args.latent_dim).to(device)
    D = Critic().to(device)

    opt_g = torch.optim.Adam(G.parameters(), lr=args.lr, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=args.lr, betas=(0.5, 0.9))
    opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=G.named_parameters(prefix="G"))

    hvd.broadcast_parameters(G.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_g, root_rank=0)

    fixed_z = torch.randn(16, args.latent_dim, device=device)
    step = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        t0 = time.time()
        d_sum, g_sum, w_sum, n_d, n_g = 0.0, 0.0, 0.0, 0, 0
        for i, real in enumerate(loader):
            real = real.to(device, non_blocking=True)

            # critic
            z = torch.randn(real.shape[0], args.latent_dim, device=device)
            fake = G(z).detach()
            d_real, d_fake = D(real).mean(), D(fake).mean()
            gp = gradient_penalty(D, real, fake)
            loss_d = d_fake - d_real + args.gp_weight * gp
            opt_d.zero_grad()
            loss_d.backward()
            opt_d.step()
            d_sum += loss_d.item()
            w_sum += (d_real - d_fake).item()
            n_d += 1

            # generator, once every n_critic critic steps
            if i % args.n_critic == 0:
                z = torch.randn(real.shape[0], args.latent_dim, device=device)
                loss_g = -D(G(z)).mean()
                opt_g.zero_grad()
                loss_g.backward()
                opt_g.step()
                g_sum += loss_g.item()
                n_g += 1
                step += 1

        d_loss = average_scalar(d_sum / max(n_d, 1), "d_loss")
        g_loss = average_scalar(g_sum / max(n_g, 1), "g_loss")
        w_dist = average_scalar(w_sum / max(n_d, 1), "w_dist")
        if hvd.rank() == 0:
            print(f"epoch {epoch:4d}  D {d_loss:+.4f}  G {g_loss:+.4f}  W {w_dist:.4f}  "
                  f"({time.time() - t0:.0f}s, {step} G steps)", flush=True)
        if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
            save_checkpoint(os.path.join(args.out, f"ckpt_{epoch + 1:04d}.pt"),
                            G=G, D=D, opt_g=opt_g, opt_d=opt_d, epoch=epoch)
            save_samples(G, fixed_z, os.path.join(args.out, f"samples_{epoch + 1:04d}.npy"))


if __name__ == "__main__":
    main()
