# DCGAN + horovod. based on the pytorch/examples dcgan
# usage: horovodrun -np 8 -H host1:4,host2:4 python main.py --dataroot ~/data/lsun --niter 25
from __future__ import print_function
import argparse
import os
import random

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--dataroot', default='./data', help='path to dataset')
parser.add_argument('--fake', action='store_true', help='use FakeData instead of an image folder')
parser.add_argument('--workers', type=int, default=2)
parser.add_argument('--batchSize', type=int, default=64)
parser.add_argument('--imageSize', type=int, default=64)
parser.add_argument('--nz', type=int, default=100)
parser.add_argument('--ngf', type=int, default=64)
parser.add_argument('--ndf', type=int, default=64)
parser.add_argument('--niter', type=int, default=25)
parser.add_argument('--lrD', type=float, default=0.0004)
parser.add_argument('--lrG', type=float, default=0.0001)
parser.add_argument('--beta1', type=float, default=0.5)
parser.add_argument('--cuda', action='store_true')
parser.add_argument('--outf', default='./results')
parser.add_argument('--manualSeed', type=int, default=999)
opt = parser.parse_args()

hvd.init()
if opt.cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if opt.cuda else "cpu")

random.seed(opt.manualSeed)
torch.manual_seed(opt.manualSeed)

if hvd.rank() == 0:
    print(opt)
    os.makedirs(opt.outf, exist_ok=True)

if opt.fake:
    dataset = dset.FakeData(size=512, image_size=(3, opt.imageSize, opt.imageSize),
                            transform=transforms.Compose([transforms.ToTensor(),
                                                          transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]))
else:
    dataset = dset.ImageFolder(root=opt.dataroot,
                               transform=transforms.Compose([
                                   transforms.Resize(opt.imageSize),
                                   transforms.CenterCrop(opt.imageSize),
                                   transforms.ToTensor(),
                                   transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
                               ]))
train_sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
dataloader = torch.utils.data.DataLoader(dataset, batch_size=opt.batchSize, sampler=train_sampler,
                                         num_workers=opt.workers, drop_last=True)

nz = opt.nz
ngf = opt.ngf
ndf = opt.ndf


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh()
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid()
        )

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


netG = Generator().to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)

criterion = nn.BCELoss()
fixed_noise = torch.randn(64, nz, 1, 1, device=device)
real_label = 1.
fake_label = 0.

optimizerD = optim.Adam(netD.parameters(), lr=opt.lrD, betas=(opt.beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=opt.lrG, betas=(opt.beta1, 0.999))
optimizerD = hvd.DistributedOptimizer(optimizerD, named_parameters=netD.named_parameters())
optimizerG = hvd.DistributedOptimizer(optimizerG, named_parameters=netG.named_parameters())

# make sure all workers start from the same weights
hvd.broadcast_parameters(netD.named_parameters(), root_rank=0)
hvd.broadcast_parameters(netG.named_parameters(), root_rank=0)
hvd.broadcast_optimizer_state(optimizerD, root_rank=0)
hvd.broadcast_optimizer_state(optimizerG, root_rank=0)

for epoch in range(opt.niter):
    train_sampler.set_epoch(epoch)
    for i, data in enumerate(dataloader, 0):
        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################
        for p in netD.parameters():
            p.requires_grad = True
        optimizerD.zero_grad()
        real_cpu = data[0].to(device)
        batch_size = real_cpu.size(0)
        label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype, device=device)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        noise = torch.randn(batch_size, nz, 1, 1, device=device)
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD = errD_real + errD_fake
        errD.backward()
        optimizerD.step()

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################
        for p in netD.parameters():
            p.requires_grad = False
        optimizerG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()

        if i % 50 == 0:
            # average over workers for the log line
            errD_avg = hvd.allreduce(errD.detach(), name='errD').item()
            errG_avg = hvd.allreduce(errG.detach(), name='errG').item()
            if hvd.rank() == 0:
                print('[%d/%d][%d/%d] Loss_D: %.4f Loss_G: %.4f D(G(z)): %.4f'
                      % (epoch, opt.niter, i, len(dataloader), errD_avg, errG_avg, D_G_z2))

    if hvd.rank() == 0:
        fake = netG(fixed_noise)
        vutils.save_image(fake.detach(), '%s/fake_samples_epoch_%03d.png' % (opt.outf, epoch), normalize=True)
        torch.save({'netG': netG.state_dict(), 'netD': netD.state_dict(), 'epoch': epoch},
                   '%s/checkpoint.pth' % opt.outf)
