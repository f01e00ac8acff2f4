"""DCGAN on 64x64 image folders, data-parallel with Horovod.

Two networks, two optimizers. D is frozen while G is updated so that G's backward
pass does not fire D's allreduce hooks.
"""
import argparse
import os

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.utils.data as tud
import torchvision.datasets as dset
import torchvision.transforms as T
import torchvision.utils as vutils

p = argparse.ArgumentParser()
p.add_argument("--dataroot", required=True)
p.add_argument("--batchSize", type=int, default=64)
p.add_argument("--nz", type=int, default=100)
p.add_argument("--ngf", type=int, default=64)
p.add_argument("--ndf", type=int, default=64)
p.add_argument("--niter", type=int, default=25)
p.add_argument("--lr", type=float, default=0.0002)
p.add_argument("--beta1", type=float, default=0.5)
p.add_argument("--outf", default="out")
opt = p.parse_args()

hvd.init()
torch.manual_seed(1234 + hvd.rank())
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if cuda else "cpu")

dataset = dset.ImageFolder(opt.dataroot, transform=T.Compose([
    T.Resize(64), T.CenterCrop(64), T.ToTensor(), T.Normalize((0.5,) * 3, (0.5,) * 3)]))
sampler = tud.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
loader = tud.DataLoader(dataset, batch_size=opt.batchSize, sampler=sampler, num_workers=2, drop_last=True)


def weights_init(m):
    name = m.__class__.__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


def set_requires_grad(net, flag):
    for q in net.parameters():
        q.requires_grad_(flag)


nz, ngf, ndf = opt.nz, opt.ngf, opt.ndf
netG = nn.Sequential(
    nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
    nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh(),
).to(device)
netD = nn.Sequential(
    nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
    nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, True),
    nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, True),
    nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Flatten(),
).to(device)
netG.apply(weights_init)
netD.apply(weights_init)

# linear scaling for both players
optD = torch.optim.Adam(netD.parameters(), lr=opt.lr * hvd.size(), betas=(opt.beta1, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=opt.lr * hvd.size(), betas=(opt.beta1, 0.999))
optD = hvd.DistributedOptimizer(optD, named_parameters=[("D." + k, v) for k, v in netD.named_parameters()])
optG = hvd.DistributedOptimizer(optG, named_parameters=[("G." + k, v) for k, v in netG.named_parameters()])

hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optG, root_rank=0)
hvd.broadcast_optimizer_state(optD, root_rank=0)

criterion = nn.BCEWithLogitsLoss()
fixed_noise = torch.randn(64, nz, 1, 1, device=device)
os.makedirs(opt.outf, exist_ok=True)

for epoch in range(opt.niter):
    sampler.set_epoch(epoch)
    for i, (real, _) in enumerate(loader):
        real = real.to(device)
        b = real.size(0)
        noise = torch.randn(b, nz, 1, 1, device=device)
        fake = netG(noise)

        # (1) D: maximize log(D(x)) + log(1 - D(G(z)))
        set_requires_grad(netD, True)
        optD.zero_grad()
        out_real = netD(real).view(-1)
        out_fake = netD(fake.detach()).view(-1)
        errD = criterion(out_real, torch.ones_like(out_real)) + criterion(out_fake, torch.zeros_like(out_fake))
        errD.backward()
        optD.step()

        # (2) G: maximize log(D(G(z)))
        set_requires_grad(netD, False)
        optG.zero_grad()
        out = netD(fake).view(-1)
        errG = criterion(out, torch.ones_like(out))
        errG.backward()
        optG.step()

        if i % 100 == 0 and hvd.rank() == 0:
            print(f"[{epoch}/{opt.niter}][{i}/{len(loader)}] Loss_D {errD.item():.4f} Loss_G {errG.item():.4f}")

    if hvd.rank() == 0:
        with torch.no_grad():
            vutils.save_image(netG(fixed_noise), f"{opt.outf}/fake_epoch_{epoch:03d}.png", normalize=True)
    torch.save(netG.state_dict(), f"{opt.outf}/netG_epoch_{epoch}.pth")
    torch.save(netD.state_dict(), f"{opt.outf}/netD_epoch_{epoch}.pth")
