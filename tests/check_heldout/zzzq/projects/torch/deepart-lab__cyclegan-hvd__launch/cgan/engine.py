import itertools
import os
import random

import torch
import torch.nn.functional as F
import torchvision.utils as vutils
import horovod.torch as hvd

from .networks import resnet_generator, patch_discriminator


class ImagePool:
    def __init__(self, n):
        self.n, self.items = n, []

    def query(self, x):
        out = []
        for im in x.detach():
            im = im.unsqueeze(0)
            if len(self.items) < self.n:
                self.items.append(im); out.append(im)
            elif random.random() > 0.5:
                j = random.randrange(self.n); out.append(self.items[j].clone()); self.items[j] = im
            else:
                out.append(im)
        return torch.cat(out)


class CycleGAN:
    def __init__(self, cfg, device):
        self.cfg, self.dev = cfg, device
        self.G_ab, self.G_ba = resnet_generator().to(device), resnet_generator().to(device)
        self.D_a, self.D_b = patch_discriminator().to(device), patch_discriminator().to(device)
        lr = cfg.lr * hvd.size()
        g_named = [("G_ab." + n, p) for n, p in self.G_ab.named_parameters()] + \
                  [("G_ba." + n, p) for n, p in self.G_ba.named_parameters()]
        d_named = [("D_a." + n, p) for n, p in self.D_a.named_parameters()] + \
                  [("D_b." + n, p) for n, p in self.D_b.named_parameters()]
        self.opt_g = hvd.DistributedOptimizer(
            torch.optim.Adam(itertools.chain(self.G_ab.parameters(), self.G_ba.parameters()), lr=lr, betas=(0.5, 0.999)),
            named_parameters=g_named)
        self.opt_d = hvd.DistributedOptimizer(
            torch.optim.Adam(itertools.chain(self.D_a.parameters(), self.D_b.parameters()), lr=lr, betas=(0.5, 0.999)),
            named_parameters=d_named)
        decay = lambda e: 1.0 - max(0, e - cfg.decay_epoch) / float(cfg.epochs - cfg.decay_epoch + 1)
        self.sched = [torch.optim.lr_scheduler.LambdaLR(o, decay) for o in (self.opt_g, self.opt_d)]
        self.pool_a, self.pool_b = ImagePool(cfg.pool_size), ImagePool(cfg.pool_size)

    def nets(self):
        return {"G_ab": self.G_ab, "G_ba": self.G_ba, "D_a": self.D_a, "D_b": self.D_b}

    def broadcast(self):
        for name, net in self.nets().items():
            hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt_g, root_rank=0)
        hvd.broadcast_optimizer_state(self.opt_d, root_rank=0)

    def _set_d(self, flag):
        for p in itertools.chain(self.D_a.parameters(), self.D_b.parameters()):
            p.requires_grad_(flag)

    def step(self, a, b):
        c = self.cfg
        self._set_d(False)
        self.opt_g.zero_grad()
        fake_b, fake_a = self.G_ab(a), self.G_ba(b)
        pa, pb = self.D_a(fake_a), self.D_b(fake_b)
        l_gan = F.mse_loss(pb, torch.ones_like(pb)) + F.mse_loss(pa, torch.ones_like(pa))
        l_cyc = F.l1_loss(self.G_ba(fake_b), a) + F.l1_loss(self.G_ab(fake_a), b)
        l_id = F.l1_loss(self.G_ab(b), b) + F.l1_loss(self.G_ba(a), a)
        l_g = l_gan + c.lambda_cyc * l_cyc + c.lambda_id * l_id
        l_g.backward()
        self.opt_g.step()

        self._set_d(True)
        self.opt_d.zero_grad()
        fa, fb = self.pool_a.query(fake_a), self.pool_b.query(fake_b)
        l_d = 0.0
        for D, real, fake in ((self.D_a, a, fa), (self.D_b, b, fb)):
            pr, pf = D(real), D(fake)
            l_d = l_d + 0.5 * (F.mse_loss(pr, torch.ones_like(pr)) + F.mse_loss(pf, torch.zeros_like(pf)))
        l_d.backward()
        self.opt_d.step()
        return {"g": l_g.item(), "cyc": l_cyc.item(), "d": l_d.item()}

    def end_epoch(self):
        for s in self.sched:
            s.step()

    def save(self, epoch, a, b):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        with torch.no_grad():
            grid = torch.cat([a, self.G_ab(a), b, self.G_ba(b)])
        vutils.save_image(grid * 0.5 + 0.5, os.path.join(self.cfg.out_dir, "epoch_%03d.png" % epoch), nrow=a.size(0))
        state = {k: v.state_dict() for k, v in self.nets().items()}
        state.update(opt_g=self.opt_g.state_dict(), opt_d=self.opt_d.state_dict(), epoch=epoch)
        torch.save(state, os.path.join(self.cfg.out_dir, "latest.pth"))
