import copy
import os

import torch
import torch.nn.functional as F
import torchvision.utils as vutils
import horovod.torch as hvd

from .models import Generator, Critic
from . import ckpt
from .dist_utils import is_master, all_mean


def requires_grad(m, flag):
    for p in m.parameters():
        p.requires_grad_(flag)


def gradient_penalty(D, real, fake):
    a = torch.rand(real.size(0), 1, 1, 1, device=real.device)
    x = (a * real + (1 - a) * fake).requires_grad_(True)
    out = D(x)
    g = torch.autograd.grad(out.sum(), x, create_graph=True)[0]
    return ((g.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


class Trainer:
    def __init__(self, opt):
        self.opt = opt
        self.dev = torch.device("cuda" if opt.cuda else "cpu")
        self.G = Generator(opt.nz, opt.ngf, opt.img_size).to(self.dev)
        self.D = Critic(opt.ndf, opt.img_size).to(self.dev)
        self.G_ema = copy.deepcopy(self.G).eval()
        k = 1 if opt.no_scale_lr else opt.world
        opt_g = torch.optim.Adam(self.G.parameters(), lr=opt.lr_g * k, betas=(opt.beta1, opt.beta2))
        opt_d = torch.optim.Adam(self.D.parameters(), lr=opt.lr_d * k, betas=(opt.beta1, opt.beta2))
        self.opt_g = hvd.DistributedOptimizer(opt_g, named_parameters=self.G.named_parameters(),
                                              op=hvd.Average)
        self.opt_d = hvd.DistributedOptimizer(opt_d, named_parameters=self.D.named_parameters(),
                                              op=hvd.Average)
        self.start_epoch = 0
        if opt.resume and is_master():
            self.start_epoch = ckpt.load(opt.resume, self.G, self.D, self.G_ema, self.opt_g, self.opt_d)
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0, name="start_epoch")
        hvd.broadcast_parameters(self.G.state_dict(), root_rank=0)
        hvd.broadcast_parameters(self.D.state_dict(), root_rank=0)
        hvd.broadcast_parameters(self.G_ema.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt_g, root_rank=0)
        hvd.broadcast_optimizer_state(self.opt_d, root_rank=0)
        self.fixed_z = torch.randn(64, opt.nz, generator=torch.Generator().manual_seed(7)).to(self.dev)

    @torch.no_grad()
    def update_ema(self):
        d = self.opt.ema_decay
        for pe, p in zip(self.G_ema.parameters(), self.G.parameters()):
            pe.mul_(d).add_(p.detach(), alpha=1 - d)
        for be, b in zip(self.G_ema.buffers(), self.G.buffers()):
            be.copy_(b)

    def train_epoch(self, loader, epoch):
        opt = self.opt
        self.G.train(); self.D.train()
        sums = {"d_loss": 0.0, "g_loss": 0.0, "gp": 0.0}
        n = 0
        for i, (real, _) in enumerate(loader):
            real = real.to(self.dev, non_blocking=True)
            requires_grad(self.D, True)
            z = torch.randn(real.size(0), opt.nz, device=self.dev)
            with torch.no_grad():
                fake = self.G(z)
            self.opt_d.zero_grad()
            gp = gradient_penalty(self.D, real, fake)
            d_loss = self.D(fake).mean() - self.D(real).mean() + opt.lambda_gp * gp
            d_loss.backward()
            self.opt_d.step()
            sums["d_loss"] += d_loss.item(); sums["gp"] += gp.item()
            n += 1
            if i % opt.n_critic == 0:
                requires_grad(self.D, False)
                self.opt_g.zero_grad()
                z = torch.randn(real.size(0), opt.nz, device=self.dev)
                g_loss = -self.D(self.G(z)).mean()
                g_loss.backward()
                self.opt_g.step()
                self.update_ema()
                sums["g_loss"] += g_loss.item()
        return {k: all_mean(v / max(n, 1), "train." + k) for k, v in sums.items()}

    @torch.no_grad()
    def feature_score(self, loader, n_batches=4):
        # cheap FID-like distance on critic features, means of real vs. EMA samples
        mu_r = mu_f = None
        cnt = torch.zeros(1)
        for i, (real, _) in enumerate(loader):
            if i >= n_batches:
                break
            real = real.to(self.dev)
            fake = self.G_ema(torch.randn(real.size(0), self.opt.nz, device=self.dev))
            fr = self.D.features(real).sum(0).cpu(); ff = self.D.features(fake).sum(0).cpu()
            mu_r = fr if mu_r is None else mu_r + fr
            mu_f = ff if mu_f is None else mu_f + ff
            cnt += real.size(0)
        mu_r = hvd.allreduce(mu_r, name="fid.mu_r", op=hvd.Sum)
        mu_f = hvd.allreduce(mu_f, name="fid.mu_f", op=hvd.Sum)
        cnt = hvd.allreduce(cnt, name="fid.cnt", op=hvd.Sum)
        return F.mse_loss(mu_r / cnt, mu_f / cnt, reduction="sum").item()

    def save_samples(self, epoch):
        with torch.no_grad():
            x = self.G_ema(self.fixed_z)
        vutils.save_image(x, os.path.join(self.opt.out, "samples", "ep%03d.png" % epoch),
                          nrow=8, normalize=True)

    def save(self, epoch):
        ckpt.save(os.path.join(self.opt.out, "ckpt", "last.pth"), epoch, self.G, self.D, self.G_ema,
                  self.opt_g, self.opt_d)
