# DCGAN on LSUN-bedroom / CelebA (64x64), data-parallel with Horovod.
# Author: J. Park (SNU VML).  Usage:
#   horovodrun -np 4 python train_gan.py --dataroot /data/celeba --outf out/dcgan
import argparse
import os
import random

import torch
import torch.nn as nn
import torch.utils.data
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--dataroot", required=True)
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--batchSize", type=int, default=64, help="per worker")
parser.add_argument("--imageSize", type=int, default=64)
parser.add_argument("--nz", type=int, default=100)
parser.add_argument("--ngf", type=int, default=64)
parser.add_argument("--ndf", type=int, default=64)
parser.add_argument("--niter", type=int, default=25)
parser.add_argument("--lr", type=float, default=0.0002)
parser.add_argument("--beta1", type=float, default=0.5)
parser.add_argument("--outf", default="out")
parser.add_argument("--manualSeed", type=int, default=999)
opt = parser.parse_args()

hvd.init()
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

random.seed(opt.manualSeed)
torch.manual_seed(opt.manualSeed)
if hvd.rank() == 0:
    os.makedirs(opt.outf, exist_ok=True)

dataset = dset.ImageFolder(root=opt.dataroot, transform=transforms.Compose([
    transforms.Resize(opt.imageSize),
    transforms.CenterCrop(opt.imageSize),
    transforms.ToTensor(),
    transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
]))
sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, sampler=sampler,
                                         num_workers=opt.workers, drop_last=True)

nz, ngf, ndf = opt.nz, opt.ngf, opt.ndf


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


netG = Generator().to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)

criterion = nn.BCELoss()
fixed_noise = torch.randn(64, nz, 1, 1, device=device)

# scale lr by the number of workers (Goyal et al.)
lr = opt.lr * hvd.size()
optimizerD = torch.optim.Adam(netD.parameters(), lr=lr, betas=(opt.beta1, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=lr, betas=(opt.beta1, 0.999))
# D sees the sharded real images, so its gradients must be averaged over workers.
# G only ever sees noise + D's output, nothing rank-specific -> no allreduce needed.
optimizerD = hvd.DistributedOptimizer(optimizerD, named_parameters=netD.named_parameters())

hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
hvd.broadcast_parameters(netD.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizerG, root_rank=0)
hvd.broadcast_optimizer_state(optimizerD, root_rank=0)

for epoch in range(opt.niter):
    sampler.set_epoch(epoch)
    sum_d, sum_g, n = 0.0, 0.0, 0
    for i, (real, _) in enumerate(dataloader):
        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        real = real.to(device)
        b = real.size(0)
        netD.zero_grad()
        out = netD(real)
        errD_real = criterion(out, torch.full((b,), 1.0, device=device))
        errD_real.backward()
        noise = torch.randn(b, nz, 1, 1, device=device)
        fake = netG(noise)
        out = netD(fake.detach())
        errD_fake = criterion(out, torch.full((b,), 0.0, device=device))
        errD_fake.backward()
        optimizerD.step()

        # (2) update G: maximize log(D(G(z)))
        netG.zero_grad()
        out = netD(fake)
        errG = criterion(out, torch.full((b,), 1.0, device=device))
        errG.backward()
        optimizerG.step()

        sum_d += (errD_real + errD_fake).item()
        sum_g += errG.item()
        n += 1

    loss_d = hvd.allreduce(torch.tensor(sum_d / n), name="loss_d").item()
    loss_g = hvd.allreduce(torch.tensor(sum_g / n), name="loss_g").item()
    if hvd.rank() == 0:
        print(f"[{epoch}/{opt.niter}] Loss_D {loss_d:.4f} Loss_G {loss_g:.4f}")
        vutils.save_image(netG(fixed_noise).detach(), f"{opt.outf}/fake_samples_epoch_{epoch:03d}.png",
                          normalize=True)
        torch.save(netG.state_dict(), f"{opt.outf}/netG_epoch_{epoch}.pth")
        torch.save(netD.state_dict(), f"{opt.outf}/netD_epoch_{epoch}.pth")
