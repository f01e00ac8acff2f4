"""DCGAN on CelebA, data parallel with Horovod.

Based on the old pytorch/examples dcgan main.py (2017); global batch is fixed,
so the Adam settings from the paper are kept as is.
"""
import argparse
import os
import random

import torch
import torch.nn as nn
import torch.optim as optim
import torchvision.utils as vutils
import horovod.torch as hvd

from gan.models import Generator, Discriminator, weights_init
from gan.data import image_folder, epoch_loader
from gan import hvd_utils as hu
from gan import checkpoint

parser = argparse.ArgumentParser()
parser.add_argument('--dataroot', required=True, help='path to an ImageFolder')
parser.add_argument('--workers', type=int, default=2)
parser.add_argument('--globalBatchSize', type=int, default=128, help='summed over all workers')
parser.add_argument('--imageSize', type=int, default=64)
parser.add_argument('--nz', type=int, default=100)
parser.add_argument('--niter', type=int, default=25)
parser.add_argument('--lr', type=float, default=0.0002)
parser.add_argument('--beta1', type=float, default=0.5)
parser.add_argument('--cuda', action='store_true')
parser.add_argument('--outf', default='out')
parser.add_argument('--manualSeed', type=int, default=None)
opt = parser.parse_args()

hvd.init()
device = torch.device('cpu')
if opt.cuda:
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device('cuda', hvd.local_rank())

if opt.manualSeed is None:
    opt.manualSeed = random.randint(1, 10000)
random.seed(opt.manualSeed + hvd.rank())
torch.manual_seed(opt.manualSeed + hvd.rank())

batch_size = opt.globalBatchSize // hvd.size()
dataset = image_folder(opt.dataroot, opt.imageSize)

netG = Generator(opt.nz).to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)

optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))

ck_path = os.path.join(opt.outf, 'dcgan_last.pth')
start_epoch = checkpoint.maybe_load(ck_path, netG, netD, optimizerG, optimizerD)
start_epoch = hu.broadcast_object(start_epoch, root_rank=0, name='start_epoch')

optimizerD = hvd.DistributedOptimizer(optimizerD, named_parameters=hu.prefixed(netD.named_parameters(), 'D'))
optimizerG = hvd.DistributedOptimizer(optimizerG, named_parameters=hu.prefixed(netG.named_parameters(), 'G'))
for net, o in ((netG, optimizerG), (netD, optimizerD)):
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(o, root_rank=0)

criterion = nn.BCEWithLogitsLoss()
fixed_noise = torch.randn(64, opt.nz, 1, 1, device=device)

for epoch in range(start_epoch, opt.niter):
    loader = epoch_loader(dataset, epoch, hvd.rank(), hvd.size(), batch_size, workers=opt.workers)
    sums = [0.0, 0.0, 0]
    for i, (real, _) in enumerate(loader):
        real = real.to(device)
        b = real.size(0)
        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        hu.set_requires_grad(netD, True)
        optimizerD.zero_grad()
        noise = torch.randn(b, opt.nz, 1, 1, device=device)
        fake = netG(noise)
        errD = criterion(netD(real), torch.ones(b, device=device)) + \
            criterion(netD(fake.detach()), torch.zeros(b, device=device))
        errD.backward()
        optimizerD.step()
        # (2) update G: maximize log(D(G(z))); D frozen so its hooks do not fire
        hu.set_requires_grad(netD, False)
        optimizerG.zero_grad()
        errG = criterion(netD(fake), torch.ones(b, device=device))
        errG.backward()
        optimizerG.step()
        sums[0] += errD.item()
        sums[1] += errG.item()
        sums[2] += 1

    loss_d, loss_g = hu.mean_over_workers([sums[0] / max(sums[2], 1), sums[1] / max(sums[2], 1)], 'epoch_losses')
    if hvd.rank() == 0:
        print('[%d/%d] Loss_D: %.4f Loss_G: %.4f' % (epoch, opt.niter, loss_d, loss_g))
        os.makedirs(opt.outf, exist_ok=True)
        with torch.no_grad():
            vutils.save_image(netG(fixed_noise).detach(), '%s/fake_samples_epoch_%03d.png' % (opt.outf, epoch),
                              normalize=True)
    checkpoint.save(ck_path, epoch, netG, netD, optimizerG, optimizerD)
