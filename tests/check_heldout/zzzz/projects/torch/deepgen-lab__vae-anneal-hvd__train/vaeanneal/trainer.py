import math
import os
import time

import torch
import horovod.torch as hvd
from torchvision.utils import save_image

from . import checkpoint
from .dist import all_sum, log, is_master
from .models import beta_schedule


class Trainer:
    def __init__(self, model, optimizer, args, device):
        self.model = model
        self.opt = optimizer
        self.args = args
        self.device = device
        self.step = 0

    def train_epoch(self, loader, epoch):
        self.model.train()
        tot = [0.0, 0.0, 0.0]
        t0 = time.time()
        for i, (x,) in enumerate(loader):
            x = x.to(self.device, non_blocking=True)
            beta = beta_schedule(self.step, self.args)
            rec, kl = self.model(x)
            loss = (rec + beta * kl).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.step += 1
            tot[0] += rec.sum().item(); tot[1] += kl.sum().item(); tot[2] += x.size(0)
            if i % 100 == 0:
                log("ep %d it %d beta %.3f loss %.2f" % (epoch, i, beta, loss.item()))
        rec_s, kl_s, n = all_sum(tot)
        log("[train] ep %d rec %.2f kl %.2f (%.1fs)" % (epoch, rec_s / n, kl_s / n, time.time() - t0))

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        tot = [0.0, 0.0]
        for (x,) in loader:
            x = x.to(self.device)
            rec, kl = self.model(x)
            tot[0] += (rec + kl).sum().item()
            tot[1] += x.size(0)
        nelbo_sum, n = all_sum(tot)
        nelbo = nelbo_sum / n
        bpd = nelbo / (784 * math.log(2.0))
        return nelbo, bpd

    def fit(self, train_loader, valid_loader, sampler, start_epoch=0):
        for epoch in range(start_epoch, self.args.epochs):
            sampler.set_epoch(epoch)
            self.train_epoch(train_loader, epoch)
            nelbo, bpd = self.evaluate(valid_loader)
            log("[valid] ep %d -ELBO %.3f  bpd %.4f" % (epoch, nelbo, bpd))
            if (epoch + 1) % self.args.save_every == 0 or epoch + 1 == self.args.epochs:
                checkpoint.save(os.path.join(self.args.out_dir, "ckpt.pt"), self.model, self.opt, epoch, self.step)
                if is_master():
                    save_image(self.model.sample(64, self.device), os.path.join(self.args.out_dir, "samples_%03d.png" % epoch), nrow=8)
