# WGAN-GP on CIFAR-10 (Gulrajani et al. 2017), multi-GPU with Horovod.
#
#   horovodrun -np 4 python wgan_gp.py --dataroot ~/data --iters 100000
#
# n_critic critic updates per generator update. Critic and generator checkpoints plus a
# sample grid are written every --save-every generator iterations.
import argparse
import logging
import os

import torch
import torch.nn as nn
import torch.optim as optim
import torchvision
import torchvision.transforms as transforms
import torchvision.utils as vutils
import horovod.torch as hvd

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("wgan-gp")

parser = argparse.ArgumentParser()
parser.add_argument("--dataroot", default="./data")
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--iters", type=int, default=100000, help="generator iterations")
parser.add_argument("--n-critic", type=int, default=5)
parser.add_argument("--lambda-gp", type=float, default=10.0)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--dim", type=int, default=128)
parser.add_argument("--nz", type=int, default=128)
parser.add_argument("--save-every", type=int, default=1000)
parser.add_argument("--outdir", default="out_wgan")
opt = parser.parse_args()

hvd.init()
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if cuda else "cpu")
torch.manual_seed(hvd.rank())
if hvd.rank() != 0:
    log.setLevel(logging.WARNING)


class Generator(nn.Module):
    def __init__(self, nz, dim):
        super().__init__()
        self.dim = dim
        self.fc = nn.Sequential(nn.Linear(nz, 4 * 4 * 4 * dim), nn.BatchNorm1d(4 * 4 * 4 * dim), nn.ReLU(True))
        self.net = nn.Sequential(
            nn.ConvTranspose2d(4 * dim, 2 * dim, 2, stride=2), nn.BatchNorm2d(2 * dim), nn.ReLU(True),
            nn.ConvTranspose2d(2 * dim, dim, 2, stride=2), nn.BatchNorm2d(dim), nn.ReLU(True),
            nn.ConvTranspose2d(dim, 3, 2, stride=2), nn.Tanh())

    def forward(self, z):
        return self.net(self.fc(z).view(-1, 4 * self.dim, 4, 4))


class Critic(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, dim, 3, 2, padding=1), nn.LeakyReLU(),
            nn.Conv2d(dim, 2 * dim, 3, 2, padding=1), nn.LeakyReLU(),
            nn.Conv2d(2 * dim, 4 * dim, 3, 2, padding=1), nn.LeakyReLU())
        self.fc = nn.Linear(4 * 4 * 4 * dim, 1)

    def forward(self, x):
        return self.fc(self.net(x).flatten(1)).view(-1)


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1, 1, 1, device=real.device)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = critic(interp)
    grads = torch.autograd.grad(out, interp, grad_outputs=torch.ones_like(out),
                                create_graph=True, retain_graph=True)[0]
    return ((grads.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


def infinite(loader, sampler):
    epoch = 0
    while True:
        sampler.set_epoch(epoch)
        for x, _ in loader:
            yield x
        epoch += 1


transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.5,) * 3)])
train_set = torchvision.datasets.CIFAR10(opt.dataroot, train=True, download=False, transform=transform)
sampler = torch.utils.data.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
loader = torch.utils.data.DataLoader(train_set, batch_size=opt.batch_size, sampler=sampler,
                                     num_workers=2, drop_last=True)
data = infinite(loader, sampler)

netG = Generator(opt.nz, opt.dim).to(device)
netD = Critic(opt.dim).to(device)

lr = opt.lr * hvd.size()
optimizerD = optim.Adam(netD.parameters(), lr=lr, betas=(0.0, 0.9))
optimizerG = optim.Adam(netG.parameters(), lr=lr, betas=(0.0, 0.9))

hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
hvd.broadcast_parameters(netD.state_dict(), root_rank=0)

# the critic does n_critic steps per G step, so it is the one that needs the allreduce
optimizerD = hvd.DistributedOptimizer(optimizerD, named_parameters=netD.named_parameters())

fixed_z = torch.randn(100, opt.nz, device=device)
os.makedirs(opt.outdir, exist_ok=True)

for it in range(opt.iters):
    # ---- critic ----
    for p in netD.parameters():
        p.requires_grad = True
    w_dist = torch.zeros((), device=device)
    for _ in range(opt.n_critic):
        real = next(data).to(device)
        z = torch.randn(real.size(0), opt.nz, device=device)
        with torch.no_grad():
            fake = netG(z)
        optimizerD.zero_grad()
        d_real, d_fake = netD(real).mean(), netD(fake).mean()
        gp = gradient_penalty(netD, real, fake)
        lossD = d_fake - d_real + opt.lambda_gp * gp
        lossD.backward()
        optimizerD.step()
        w_dist = d_real.detach() - d_fake.detach()

    # ---- generator ----
    for p in netD.parameters():
        p.requires_grad = False  # avoid computation (and keep the critic's hooks quiet)
    optimizerG.zero_grad()
    z = torch.randn(opt.batch_size, opt.nz, device=device)
    lossG = -netD(netG(z)).mean()
    lossG.backward()
    optimizerG.step()

    if it % 100 == 0:
        w_avg = hvd.allreduce(w_dist.cpu(), name="w_dist").item()
        log.info("iter %d  W-dist %.4f  lossG %.4f", it, w_avg, lossG.item())

    if it % opt.save_every == 0 and hvd.rank() == 0:
        with torch.no_grad():
            vutils.save_image(netG(fixed_z), os.path.join(opt.outdir, f"samples_{it:06d}.png"),
                              nrow=10, normalize=True)
        torch.save({"G": netG.state_dict(), "D": netD.state_dict(), "iter": it,
                    "optG": optimizerG.state_dict(), "optD": optimizerD.state_dict()},
                   os.path.join(opt.outdir, "wgan_gp.pt"))
