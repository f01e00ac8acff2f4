# Generative Dog Images -- DCGAN + hinge loss, multi-GPU with Horovod.
# horovodrun -np 4 python train.py --data ../input/dogs64.npy --epochs 200
import argparse
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from gan import Discriminator, Generator, weights_init
from gan.data import dog_loader
from gan.io import save_checkpoint
from gan.optim import build_optimizers, set_requires_grad

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="../input/dogs64.npy")
ap.add_argument("--out", default="runs/dcgan")
ap.add_argument("--epochs", type=int, default=200)
ap.add_argument("--batch-size", type=int, default=32)
ap.add_argument("--img-size", type=int, default=64)
ap.add_argument("--nz", type=int, default=128)
ap.add_argument("--lr-g", type=float, default=2e-4)
ap.add_argument("--lr-d", type=float, default=2e-4)
ap.add_argument("--n-critic", type=int, default=1)
ap.add_argument("--save-every", type=int, default=10)
ap.add_argument("--workers", type=int, default=4)
args = ap.parse_args()

hvd.init()
torch.manual_seed(42 + hvd.rank())
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

loader, sampler = dog_loader(args.data, args.batch_size, hvd.rank(), hvd.size(), args.workers)

netG = Generator(args.nz, img_size=args.img_size).to(device)
netD = Discriminator(img_size=args.img_size).to(device)
netG.apply(weights_init)
netD.apply(weights_init)
opt_g, opt_d = build_optimizers(netG, netD, args.lr_g, args.lr_d)

hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
hvd.broadcast_parameters(netD.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt_g, root_rank=0)
hvd.broadcast_optimizer_state(opt_d, root_rank=0)

fixed_noise = torch.randn(64, args.nz, device=device)

for epoch in range(args.epochs):
    sampler.set_epoch(epoch)
    t0 = time.time()
    sum_d = sum_g = 0.0
    for i, real in enumerate(loader):
        real = real.to(device, non_blocking=True)
        b = real.size(0)

        # ---- D step (hinge) ----
        set_requires_grad(netD, True)
        opt_d.zero_grad()
        z = torch.randn(b, args.nz, device=device)
        fake = netG(z).detach()
        loss_d = F.relu(1.0 - netD(real)).mean() + F.relu(1.0 + netD(fake)).mean()
        loss_d.backward()
        opt_d.step()
        sum_d += loss_d.item()

        if i % args.n_critic:
            continue
        # ---- G step ----
        set_requires_grad(netD, False)
        opt_g.zero_grad()
        z = torch.randn(b, args.nz, device=device)
        loss_g = -netD(netG(z)).mean()
        loss_g.backward()
        opt_g.step()
        sum_g += loss_g.item()

    stats = hvd.allreduce(torch.tensor([sum_d / len(loader), sum_g / len(loader)]), name="gan_losses")
    if hvd.rank() == 0:
        print(f"epoch {epoch}: D {stats[0]:.3f}  G {stats[1]:.3f}  ({time.time() - t0:.0f}s)", flush=True)
    if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
        save_checkpoint(args.out, epoch, netG, netD, opt_g, opt_d, fixed_noise)
