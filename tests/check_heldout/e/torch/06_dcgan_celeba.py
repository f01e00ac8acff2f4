"""DCGAN on CelebA (64x64), Horovod data parallel. Both networks are trained with their own
DistributedOptimizer; D is frozen during the G update so its hooks do not fire twice."""
import argparse
import os

import torch
import torch.nn as nn
import torch.utils.data.distributed
import torchvision.utils as vutils
from torchvision import datasets, transforms
import horovod.torch as hvd

NZ, NGF, NDF = 100, 64, 64


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(NZ, NGF * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(NGF * 8), nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 8, NGF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 4), nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 4, NGF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),
            nn.ConvTranspose2d(NGF * 2, NGF, 4, 2, 1, bias=False), nn.BatchNorm2d(NGF), nn.ReLU(True),
            nn.ConvTranspose2d(NGF, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, NDF, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
            nn.Conv2d(NDF, NDF * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 2), nn.LeakyReLU(0.2, True),
            nn.Conv2d(NDF * 2, NDF * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 4), nn.LeakyReLU(0.2, True),
            nn.Conv2d(NDF * 4, NDF * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(NDF * 8), nn.LeakyReLU(0.2, True),
            nn.Conv2d(NDF * 8, 1, 4, 1, 0, bias=False))

    def forward(self, x):
        return self.main(x).view(-1)


def weights_init(m):
    name = m.__class__.__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def make_loader(root, batch_size):
    tf = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(64), transforms.ToTensor(),
                             transforms.Normalize((0.5,) * 3, (0.5,) * 3)])
    ds = datasets.ImageFolder(root, transform=tf)
    sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
    loader = torch.utils.data.DataLoader(ds, batch_size=batch_size, sampler=sampler,
                                         num_workers=6, pin_memory=True, drop_last=True)
    return loader, sampler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataroot", default="/datasets/celeba")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--outdir", default="dcgan_out")
    ap.add_argument("--seed", type=int, default=999)
    args = ap.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(args.seed + hvd.rank())  # different noise on every worker
    dev = torch.device("cuda")
    loader, sampler = make_loader(args.dataroot, args.batch_size)

    netG, netD = Generator().to(dev), Discriminator().to(dev)
    netG.apply(weights_init)
    netD.apply(weights_init)

    lr = args.lr * hvd.size()
    optG = torch.optim.Adam(netG.parameters(), lr=lr, betas=(0.5, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=lr, betas=(0.5, 0.999))

    hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optG, root_rank=0)
    hvd.broadcast_optimizer_state(optD, root_rank=0)

    optG = hvd.DistributedOptimizer(optG, named_parameters=netG.named_parameters(prefix="G"))
    optD = hvd.DistributedOptimizer(optD, named_parameters=netD.named_parameters(prefix="D"))
    bce = nn.BCEWithLogitsLoss()
    fixed_noise = torch.randn(64, NZ, 1, 1, device=dev)

    if hvd.rank() == 0:
        os.makedirs(args.outdir, exist_ok=True)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        sums = torch.zeros(3, device=dev)   # lossD, lossG, batches
        for real, _ in loader:
            real = real.to(dev, non_blocking=True)
            b = real.size(0)
            ones, zeros = torch.ones(b, device=dev), torch.zeros(b, device=dev)

            # (1) D: maximise log D(x) + log(1 - D(G(z)))
            netD.requires_grad_(True)
            optD.zero_grad()
            fake = netG(torch.randn(b, NZ, 1, 1, device=dev))
            lossD = bce(netD(real), ones) + bce(netD(fake.detach()), zeros)
            lossD.backward()
            optD.step()

            # (2) G: maximise log D(G(z)); D frozen so only G's grads are reduced
            netD.requires_grad_(False)
            optG.zero_grad()
            lossG = bce(netD(fake), ones)
            lossG.backward()
            optG.step()

            sums += torch.stack([lossD.detach(), lossG.detach(), torch.tensor(1.0, device=dev)])

        sums = hvd.allreduce(sums, op=hvd.Sum, name="gan_losses")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss_D {sums[0] / sums[2]:.4f}  loss_G {sums[1] / sums[2]:.4f}")
            with torch.no_grad():
                grid = netG(fixed_noise).cpu()
            vutils.save_image(grid, f"{args.outdir}/fake_{epoch:03d}.png", normalize=True, nrow=8)
            torch.save({"G": netG.state_dict(), "D": netD.state_dict(),
                        "optG": optG.state_dict(), "optD": optD.state_dict(), "epoch": epoch},
                       f"{args.outdir}/dcgan_ckpt.pt")


if __name__ == "__main__":
    main()
