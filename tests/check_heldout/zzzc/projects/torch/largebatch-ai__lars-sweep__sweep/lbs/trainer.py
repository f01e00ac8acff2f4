import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from .registry import OPTIMIZERS, split_params
from .schedules import lr_at


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, 16, 16, generator=g)
    return TensorDataset(x, (x.mean(dim=(1, 2, 3)) > 0).long())


def make_model():
    return nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(512, 2))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = make_model().to(self.device)
        train, val = make_data(16384, 0), make_data(4096, 1)
        self.sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
        self.train_loader = DataLoader(train, batch_size=cfg.batch_size, sampler=self.sampler)
        self.val_loader = DataLoader(val, batch_size=1024,
                                     sampler=DistributedSampler(val, hvd.size(), hvd.rank(), shuffle=False))
        decay, no_decay = split_params(self.model)
        body = OPTIMIZERS[cfg.optimizer]([p for _, p in decay], 0.0, cfg.weight_decay)
        head = torch.optim.SGD([p for _, p in no_decay], lr=0.0, momentum=0.9)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(body, root_rank=0)
        self.optimizers = [hvd.DistributedOptimizer(body, named_parameters=decay), head]

    def set_lr(self, lr):
        for opt in self.optimizers:
            for g in opt.param_groups:
                g["lr"] = lr

    def evaluate(self):
        self.model.eval()
        correct = total = 0.0
        with torch.no_grad():
            for x, y in self.val_loader:
                x, y = x.to(self.device), y.to(self.device)
                correct += (self.model(x).argmax(1) == y).sum().item()
                total += len(y)
        stats = hvd.allreduce(torch.tensor([correct, total]), op=hvd.Sum, name="val_stats")
        return (stats[0] / stats[1]).item()

    def fit(self):
        n = len(self.train_loader)
        best = 0.0
        for epoch in range(self.cfg.epochs):
            self.sampler.set_epoch(epoch)
            self.model.train()
            for i, (x, y) in enumerate(self.train_loader):
                x, y = x.to(self.device), y.to(self.device)
                self.set_lr(lr_at(self.cfg, epoch + i / n))
                for opt in self.optimizers:
                    opt.zero_grad()
                F.cross_entropy(self.model(x), y).backward()
                for opt in self.optimizers:
                    opt.step()
            acc = self.evaluate()
            if acc > best and hvd.rank() == 0:
                best = acc
                os.makedirs(self.cfg.out_dir, exist_ok=True)
                torch.save(self.model.state_dict(),
                           os.path.join(self.cfg.out_dir, f"{self.cfg.optimizer}_lr{self.cfg.base_lr}.pt"))
        return best
