import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from .datasets import make_loaders
from .metrics import StreamSegMetrics
from .checkpoint import save_checkpoint


class TinySegFormer(nn.Module):
    """MiT-b0 sized stand-in: 4 stride stages + all-MLP decoder."""

    def __init__(self, num_classes, dims=(32, 64, 160, 256)):
        super().__init__()
        self.stages = nn.ModuleList()
        cin = 3
        for i, d in enumerate(dims):
            s = 4 if i == 0 else 2
            self.stages.append(nn.Sequential(nn.Conv2d(cin, d, s + 1 if s == 2 else 7, s, padding=(s + 1) // 2 if s == 2 else 3),
                                             nn.BatchNorm2d(d), nn.GELU()))
            cin = d
        self.fuse = nn.ModuleList([nn.Conv2d(d, 128, 1) for d in dims])
        self.cls = nn.Conv2d(128 * 4, num_classes, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        feats = []
        for st in self.stages:
            x = st(x)
            feats.append(x)
        size = feats[0].shape[-2:]
        y = torch.cat([F.interpolate(f(p), size=size, mode="bilinear", align_corners=False)
                       for f, p in zip(self.fuse, feats)], 1)
        return F.interpolate(self.cls(y), size=(h, w), mode="bilinear", align_corners=False)


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.rank, self.world = hvd.rank(), hvd.size()
        self.device = torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
        self.train_dl, self.val_dl = make_loaders(cfg, self.rank, self.world)
        self.model = TinySegFormer(cfg.num_classes).to(self.device)
        self.base_lr = cfg.lr * self.world
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.base_lr, weight_decay=cfg.weight_decay)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        self.max_iters = cfg.epochs * len(self.train_dl)
        self.it = 0
        self.metrics = StreamSegMetrics(cfg.num_classes)
        self.best_miou = 0.0

    def _lr(self):
        if self.it < self.cfg.warmup_iters:
            return self.base_lr * (self.it + 1) / self.cfg.warmup_iters
        return self.base_lr * (1 - self.it / self.max_iters) ** self.cfg.power

    def train_one_epoch(self, epoch):
        self.model.train()
        tic = time.time()
        for img, lbl in self.train_dl:
            img, lbl = img.to(self.device), lbl.to(self.device)
            for g in self.optimizer.param_groups:
                g["lr"] = self._lr()
            loss = F.cross_entropy(self.model(img), lbl, ignore_index=255)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.it += 1
            if self.rank == 0 and self.it % 50 == 0:
                print("[%d/%d] loss %.4f lr %.2e %.1fs" % (self.it, self.max_iters, loss.item(), self._lr(), time.time() - tic))

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        self.metrics.reset()
        for img, lbl in self.val_dl:
            pred = self.model(img.to(self.device)).argmax(1).cpu().numpy()
            self.metrics.update(lbl.numpy(), pred)
        return self.metrics.get_results()

    def fit(self):
        for epoch in range(self.cfg.epochs):
            self.train_one_epoch(epoch)
            if (epoch + 1) % self.cfg.val_every == 0:
                res = self.validate()
                miou = res["Mean IoU"]
                is_best = miou > self.best_miou
                self.best_miou = max(miou, self.best_miou)
                if self.rank == 0:
                    print("epoch %d  mIoU %.4f  best %.4f" % (epoch, miou, self.best_miou))
                save_checkpoint({"epoch": epoch, "state_dict": self.model.state_dict(),
                                 "optimizer": self.optimizer.state_dict(), "best_miou": self.best_miou},
                                is_best, self.cfg.out_dir)
