import argparse
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision.utils import save_image

from gan_data import ImageDir
from models import Discriminator, Generator
from optim_factory import build_optimizers


def d_logistic_loss(real_pred, fake_pred):
    return F.softplus(fake_pred).mean() + F.softplus(-real_pred).mean()


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def r1_penalty(real_pred, real_img):
    grad, = torch.autograd.grad(real_pred.sum(), real_img, create_graph=True)
    return grad.pow(2).flatten(1).sum(1).mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/ffhq64")
    parser.add_argument("--resolution", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--iters", type=int, default=200000)
    parser.add_argument("--lr", type=float, default=0.002)
    parser.add_argument("--r1", type=float, default=10.0)
    parser.add_argument("--z_dim", type=int, default=256)
    parser.add_argument("--out", default="runs/stylegan-mini")
    parser.add_argument("--log_every", type=int, default=100)
    parser.add_argument("--ckpt_every", type=int, default=5000)
    args = parser.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

    dataset = ImageDir(args.data, args.resolution)
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch, sampler=sampler, num_workers=4, drop_last=True)

    G = Generator(args.resolution, args.z_dim).to(device)
    D = Discriminator(args.resolution).to(device)
    opt_g, opt_d = build_optimizers(G, D, lr_g=args.lr * hvd.size(), lr_d=args.lr * hvd.size())

    hvd.broadcast_parameters(G.state_dict(), root_rank=0)
    hvd.broadcast_parameters(D.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_g, root_rank=0)
    hvd.broadcast_optimizer_state(opt_d, root_rank=0)

    fixed_z = torch.randn(64, args.z_dim, device=device)
    epoch, it = 0, 0
    while it < args.iters:
        sampler.set_epoch(epoch)
        for real in loader:
            real = real.to(device)
            z = torch.randn(real.size(0), args.z_dim, device=device)

            # discriminator step
            real.requires_grad_(it % 16 == 0)
            fake = G(z).detach()
            real_pred, fake_pred = D(real), D(fake)
            d_loss = d_logistic_loss(real_pred, fake_pred)
            if it % 16 == 0:
                d_loss = d_loss + args.r1 / 2 * r1_penalty(real_pred, real) * 16
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()

            # generator step
            g_loss = g_nonsaturating_loss(D(G(z)))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()

            if hvd.rank() == 0 and it % args.log_every == 0:
                print(f"iter {it}: D {d_loss.item():.4f}  G {g_loss.item():.4f}", flush=True)
            if hvd.rank() == 0 and it % args.ckpt_every == 0:
                os.makedirs(args.out, exist_ok=True)
                with torch.no_grad():
                    save_image(G(fixed_z), os.path.join(args.out, f"sample_{it:07d}.png"),
                               nrow=8, normalize=True, value_range=(-1, 1))
                torch.save({"G": G.state_dict(), "D": D.state_dict(), "iter": it},
                           os.path.join(args.out, f"ckpt_{it:07d}.pt"))
            it += 1
            if it >= args.iters:
                break
        epoch += 1


if __name__ == "__main__":
    main()
