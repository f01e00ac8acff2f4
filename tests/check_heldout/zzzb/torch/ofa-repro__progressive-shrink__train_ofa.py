"""Once-for-all style progressive shrinking on CIFAR-100, Horovod data parallel.

phases: full -> elastic kernel -> elastic depth -> elastic width, each phase distilled
from the full network trained in phase 0.
"""
import copy
import os
import random
from dataclasses import dataclass, field
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


@dataclass
class Config:
    data_dir: str = os.environ.get("CIFAR100_DIR", "data/cifar100")
    batch_size: int = 128
    base_lr: float = 0.1
    weight_decay: float = 3e-5
    kd_ratio: float = 1.0
    workers: int = 4
    out_dir: str = "exp/ofa"
    phases: List[dict] = field(default_factory=lambda: [
        {"name": "full", "epochs": 40, "lr": None, "kernels": [7], "depths": [4], "expands": [6]},
        {"name": "kernel", "epochs": 20, "lr": 0.03, "kernels": [3, 5, 7], "depths": [4], "expands": [6]},
        {"name": "depth", "epochs": 25, "lr": 0.0075, "kernels": [3, 5, 7], "depths": [2, 3, 4], "expands": [6]},
        {"name": "width", "epochs": 25, "lr": 0.0075, "kernels": [3, 5, 7], "depths": [2, 3, 4], "expands": [3, 4, 6]},
    ])


class ElasticBlock(nn.Module):
    """MBConv with the largest kernel / expand stored; smaller ones are slices."""

    def __init__(self, c, max_k=7, max_e=6):
        super().__init__()
        self.c, self.max_k, self.max_e = c, max_k, max_e
        self.pw1 = nn.Conv2d(c, c * max_e, 1, bias=False)
        self.dw = nn.Conv2d(c * max_e, c * max_e, max_k, padding=max_k // 2, groups=c * max_e, bias=False)
        self.pw2 = nn.Conv2d(c * max_e, c, 1, bias=False)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x, k, e):
        h = self.c * e
        off = (self.max_k - k) // 2
        y = F.relu6(F.conv2d(x, self.pw1.weight[:h]))
        dw = self.dw.weight[:h, :, off:off + k, off:off + k]
        y = F.relu6(F.conv2d(y, dw, padding=k // 2, groups=h))
        y = F.conv2d(y, self.pw2.weight[:, :h])
        return x + self.bn(y)


class OFANet(nn.Module):
    def __init__(self, width=32, max_depth=4, num_classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU6())
        self.blocks = nn.ModuleList([ElasticBlock(width) for _ in range(max_depth)])
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x, sub=None):
        sub = sub or {"k": [7] * len(self.blocks), "e": [6] * len(self.blocks), "d": len(self.blocks)}
        x = self.stem(x)
        for i in range(sub["d"]):
            x = self.blocks[i](x, sub["k"][i], sub["e"][i])
        return self.fc(x.mean((2, 3)))


def sample_subnet(phase, n_blocks, rng):
    return {"k": [rng.choice(phase["kernels"]) for _ in range(n_blocks)],
            "e": [rng.choice(phase["expands"]) for _ in range(n_blocks)],
            "d": rng.choice(phase["depths"])}


class OFATrainer:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        norm = T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))
        train = torchvision.datasets.CIFAR100(cfg.data_dir, train=True,
                                              transform=T.Compose([T.RandomCrop(32, 4), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
        val = torchvision.datasets.CIFAR100(cfg.data_dir, train=False, transform=T.Compose([T.ToTensor(), norm]))
        self.train_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
        self.val_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.train_loader = DataLoader(train, cfg.batch_size, sampler=self.train_sampler, num_workers=cfg.workers)
        self.val_loader = DataLoader(val, 256, sampler=self.val_sampler, num_workers=cfg.workers)
        self.net = OFANet().to(self.device)
        self.teacher = None
        self.best = {}

    def _optimizer(self, lr):
        opt = torch.optim.SGD(self.net.parameters(), lr=lr, momentum=0.9, nesterov=True,
                              weight_decay=self.cfg.weight_decay)
        opt = hvd.DistributedOptimizer(opt, named_parameters=self.net.named_parameters())
        hvd.broadcast_parameters(self.net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        return opt

    def train_phase(self, idx, phase):
        lr = phase["lr"] if phase["lr"] is not None else self.cfg.base_lr * hvd.size()
        opt = self._optimizer(lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=phase["epochs"])
        n_batches = len(self.train_loader)
        for epoch in range(phase["epochs"]):
            self.train_sampler.set_epoch(epoch + 1000 * idx)
            self.net.train()
            for i, (x, y) in enumerate(self.train_loader):
                x, y = x.to(self.device), y.to(self.device)
                rng = random.Random(epoch * n_batches + i)  # same subnet on every worker
                sub = sample_subnet(phase, len(self.net.blocks), rng)
                out = self.net(x, sub)
                loss = F.cross_entropy(out, y)
                if self.teacher is not None:
                    with torch.no_grad():
                        soft = F.softmax(self.teacher(x), dim=1)
                    loss = loss + self.cfg.kd_ratio * F.kl_div(F.log_softmax(out, 1), soft, reduction="batchmean")
                opt.zero_grad()
                loss.backward()
                opt.step()
            sched.step()
            acc = self.validate(phase)
            if hvd.rank() == 0:
                print(f"[{phase['name']}] epoch {epoch} lr {sched.get_last_lr()[0]:.4f} "
                      f"acc(min/max subnet) {acc[0]:.3f}/{acc[1]:.3f}", flush=True)
                if acc[1] > self.best.get(phase["name"], 0.0):
                    self.best[phase["name"]] = acc[1]
                    self.save(f"{phase['name']}_best.pth")
        if phase["name"] == "full":
            self.teacher = copy.deepcopy(self.net).eval()

    @torch.no_grad()
    def validate(self, phase):
        self.net.eval()
        n = len(self.net.blocks)
        smallest = {"k": [min(phase["kernels"])] * n, "e": [min(phase["expands"])] * n, "d": min(phase["depths"])}
        res = []
        for sub in (smallest, None):
            correct = total = 0
            for x, y in self.val_loader:
                pred = self.net(x.to(self.device), sub).argmax(1).cpu()
                correct += (pred == y).sum().item()
                total += y.numel()
            res.append(correct / total)
        return res

    def save(self, name):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"net": self.net.state_dict(), "best": self.best}, os.path.join(self.cfg.out_dir, name))

    def fit(self):
        for idx, phase in enumerate(self.cfg.phases):
            self.train_phase(idx, phase)


if __name__ == "__main__":
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(0)
    OFATrainer(Config()).fit()
