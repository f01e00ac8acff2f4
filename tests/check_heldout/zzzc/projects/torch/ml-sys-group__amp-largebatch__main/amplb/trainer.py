import logging
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from . import distributed
from .data import build_loaders
from .evaluate import accuracy

log = logging.getLogger(__name__)

OPTIMIZERS = {
    "adamw": lambda p, lr: torch.optim.AdamW(p, lr=lr, weight_decay=0.05),
    "sgd": lambda p, lr: torch.optim.SGD(p, lr=lr, momentum=0.9, nesterov=True),
    "rmsprop": lambda p, lr: torch.optim.RMSprop(p, lr=lr, alpha=0.9),
}


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.train_loader, self.val_loader = build_loaders(cfg)
        self.ctx = distributed.setup()
        self.model = nn.Sequential(nn.Linear(256, 1024), nn.LayerNorm(1024), nn.GELU(),
                                   nn.Linear(1024, 20)).to(self.ctx.device)
        self.peak_lr = cfg.lr * self.ctx.size
        opt = OPTIMIZERS[cfg.optimizer](self.model.parameters(), self.peak_lr)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and torch.cuda.is_available())

    def _lr(self, it, per_epoch):
        warm = self.cfg.warmup_epochs * per_epoch
        return self.peak_lr * min(1.0, (it + 1) / warm) if warm else self.peak_lr

    def train_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        n = len(self.train_loader)
        for i, (x, y) in enumerate(self.train_loader):
            for g in self.opt.param_groups:
                g["lr"] = self._lr(epoch * n + i, n)
            x, y = x.to(self.ctx.device), y.to(self.ctx.device)
            self.opt.zero_grad()
            with torch.autocast(self.ctx.device.type, enabled=self.scaler.is_enabled()):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.opt.synchronize()
            self.scaler.unscale_(self.opt)
            if self.cfg.grad_clip:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
            with self.opt.skip_synchronize():
                self.scaler.step(self.opt)
            self.scaler.update()

    def fit(self):
        best = 0.0
        for epoch in range(self.cfg.epochs):
            self.train_epoch(epoch)
            acc = accuracy(self.model, self.val_loader, self.ctx.device)
            if self.ctx.is_main:
                log.info("epoch %d val_acc %.4f", epoch, acc)
                if acc > best:
                    best = acc
                    os.makedirs(self.cfg.ckpt_dir, exist_ok=True)
                    torch.save({"model": self.model.state_dict(), "epoch": epoch, "acc": acc,
                                "cfg": self.cfg.to_dict()}, os.path.join(self.cfg.ckpt_dir, "best.pt"))
        return best
