"""DCGAN on 64x64 face crops, Horovod.  horovodrun -np 8 python 10_dcgan_faces.py --root /data/celeba64"""
import argparse
import os

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as T
import torchvision.utils as vutils
import horovod.torch as hvd

NZ = 100


def weights_init(m):
    name = m.__class__.__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def make_G(ngf=64):
    return nn.Sequential(
        nn.ConvTranspose2d(NZ, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
        nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())


def make_D(ndf=64):
    return nn.Sequential(
        nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, True),
        nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Flatten())


class GANTrainer:
    def __init__(self, args):
        self.args = args
        self.dev = torch.device("cuda", hvd.local_rank())
        self.G = make_G().to(self.dev)
        self.D = make_D().to(self.dev)
        self.G.apply(weights_init)
        self.D.apply(weights_init)
        lr = args.lr * hvd.size()
        optG = torch.optim.Adam(self.G.parameters(), lr=lr, betas=(0.5, 0.999))
        optD = torch.optim.Adam(self.D.parameters(), lr=lr, betas=(0.5, 0.999))
        self.start_epoch = 0
        ckpt = os.path.join(args.out, "dcgan_last.pt")
        if hvd.rank() == 0 and args.resume and os.path.isfile(ckpt):
            state = torch.load(ckpt, map_location=self.dev)
            self.G.load_state_dict(state["G"])
            self.D.load_state_dict(state["D"])
            optG.load_state_dict(state["optG"])
            optD.load_state_dict(state["optD"])
            self.start_epoch = state["epoch"] + 1
        # rank 0 holds the (possibly resumed) weights: send them to everybody
        for net, opt in ((self.G, optG), (self.D, optD)):
            hvd.broadcast_parameters(net.state_dict(), root_rank=0)
            hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0)
        self.optG = hvd.DistributedOptimizer(optG, named_parameters=[("G." + n, p) for n, p in self.G.named_parameters()])
        self.optD = hvd.DistributedOptimizer(optD, named_parameters=[("D." + n, p) for n, p in self.D.named_parameters()])
        self.crit = nn.BCEWithLogitsLoss()
        self.fixed_z = torch.randn(64, NZ, 1, 1, device=self.dev)

    def step(self, real):
        b = real.size(0)
        ones = torch.ones(b, 1, device=self.dev)
        zeros = torch.zeros(b, 1, device=self.dev)
        # --- D
        self.optD.zero_grad()
        fake = self.G(torch.randn(b, NZ, 1, 1, device=self.dev))
        lossD = self.crit(self.D(real), ones) + self.crit(self.D(fake.detach()), zeros)
        lossD.backward()
        self.optD.step()
        # --- G (D frozen so its allreduce hooks do not fire on the G backward)
        self.D.requires_grad_(False)
        self.optG.zero_grad()
        lossG = self.crit(self.D(fake), ones)
        lossG.backward()
        self.optG.step()
        self.D.requires_grad_(True)
        return lossD.detach(), lossG.detach()

    def train(self, loader, sampler):
        a = self.args
        for epoch in range(self.start_epoch, a.epochs):
            sampler.set_epoch(epoch)
            sums = torch.zeros(2, device=self.dev)
            for real, _ in loader:
                dl, gl = self.step(real.to(self.dev, non_blocking=True))
                sums += torch.stack([dl, gl])
            sums = hvd.allreduce(sums / len(loader), name="gan_losses")
            if hvd.rank() == 0:
                print(f"epoch {epoch}: loss_D {sums[0]:.3f} loss_G {sums[1]:.3f}")
                with torch.no_grad():
                    self.G.eval()
                    vutils.save_image(self.G(self.fixed_z), os.path.join(a.out, f"samples_{epoch:03d}.png"),
                                      normalize=True)
                    self.G.train()
                torch.save({"G": self.G.state_dict(), "D": self.D.state_dict(), "optG": self.optG.state_dict(),
                            "optD": self.optD.state_dict(), "epoch": epoch}, os.path.join(a.out, "dcgan_last.pt"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/data/celeba64")
    ap.add_argument("--out", default="out_dcgan")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    os.makedirs(args.out, exist_ok=True)

    ds = dset.ImageFolder(args.root, transform=T.Compose([
        T.Resize(64), T.CenterCrop(64), T.ToTensor(), T.Normalize((0.5,) * 3, (0.5,) * 3)]))
    sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, sampler=sampler, num_workers=6,
                                         pin_memory=True, drop_last=True)
    GANTrainer(args).train(loader, sampler)


if __name__ == "__main__":
    main()
