"""DCGAN on CelebA 64x64, multi-GPU with horovod (converted from my single GPU version)."""
import argparse
import os
import torch
import torch.nn as nn
import torch.utils.data
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--dataroot", default="/scratch/$USER/celeba")
parser.add_argument("--batchSize", type=int, default=64)
parser.add_argument("--nz", type=int, default=100)
parser.add_argument("--ngf", type=int, default=64)
parser.add_argument("--ndf", type=int, default=64)
parser.add_argument("--niter", type=int, default=25)
parser.add_argument("--lr", type=float, default=0.0002)
parser.add_argument("--beta1", type=float, default=0.5)
parser.add_argument("--outf", default="out_dcgan")
opt = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank())
torch.manual_seed(999 + hvd.rank())
device = torch.device("cuda")

dataset = dset.ImageFolder(root=os.path.expandvars(opt.dataroot), transform=transforms.Compose([
    transforms.Resize(64), transforms.CenterCrop(64), transforms.ToTensor(),
    transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]))
sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, sampler=sampler,
                                         num_workers=4, drop_last=True)


def weights_init(m):
    cn = m.__class__.__name__
    if cn.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif cn.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self, nz, ngf):
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
    def __init__(self, ndf):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.main(x).view(-1)


netG = Generator(opt.nz, opt.ngf).to(device)
netG.apply(weights_init)
netD = Discriminator(opt.ndf).to(device)
netD.apply(weights_init)

criterion = nn.BCELoss()
fixed_noise = torch.randn(64, opt.nz, 1, 1, device=device)

lr = opt.lr * hvd.size()
optimizerD = torch.optim.Adam(netD.parameters(), lr=lr, betas=(opt.beta1, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=lr, betas=(opt.beta1, 0.999))
optimizerD = hvd.DistributedOptimizer(optimizerD, named_parameters=netD.named_parameters(prefix="D"))
optimizerG = hvd.DistributedOptimizer(optimizerG, named_parameters=netG.named_parameters(prefix="G"))

# sync initial weights
hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizerG, root_rank=0)
hvd.broadcast_optimizer_state(optimizerD, root_rank=0)

if hvd.rank() == 0:
    os.makedirs(opt.outf, exist_ok=True)

for epoch in range(opt.niter):
    sampler.set_epoch(epoch)
    sum_d, sum_g, nb = 0.0, 0.0, 0
    for i, (real, _) in enumerate(dataloader):
        real = real.to(device)
        b = real.size(0)
        # (1) update D
        optimizerD.zero_grad()
        out = netD(real)
        errD_real = criterion(out, torch.full((b,), 1.0, device=device))
        noise = torch.randn(b, opt.nz, 1, 1, device=device)
        fake = netG(noise)
        out = netD(fake.detach())
        errD_fake = criterion(out, torch.full((b,), 0.0, device=device))
        (errD_real + errD_fake).backward()  # single backward, horovod hooks fire once per step
        optimizerD.step()
        # (2) update G, D frozen so its allreduce hooks do not fire
        for p in netD.parameters():
            p.requires_grad_(False)
        optimizerG.zero_grad()
        out = netD(fake)
        errG = criterion(out, torch.full((b,), 1.0, device=device))
        errG.backward()
        optimizerG.step()
        for p in netD.parameters():
            p.requires_grad_(True)

        sum_d += (errD_real + errD_fake).item()
        sum_g += errG.item()
        nb += 1

    d_loss = hvd.allreduce(torch.tensor(sum_d / nb), name="d_loss").item()
    g_loss = hvd.allreduce(torch.tensor(sum_g / nb), name="g_loss").item()
    if hvd.rank() == 0:
        print("[%d/%d] Loss_D: %.4f Loss_G: %.4f" % (epoch, opt.niter, d_loss, g_loss))
        with torch.no_grad():
            fake = netG(fixed_noise).detach().cpu()
        vutils.save_image(fake, "%s/fake_epoch_%03d.png" % (opt.outf, epoch), normalize=True)
        torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, "%s/ckpt_epoch_%03d.pth" % (opt.outf, epoch))
