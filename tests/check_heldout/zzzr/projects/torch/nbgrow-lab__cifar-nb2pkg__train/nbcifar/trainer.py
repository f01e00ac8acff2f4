import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from .metrics import Meter
from .dist_utils import log


class SmallNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = nn.Conv2d(32, 64, 3, padding=1)
        self.fc = nn.Linear(64 * 8 * 8, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


class Trainer:
    def __init__(self, cfg, model, device):
        self.cfg = cfg
        self.model = model.to(device)
        self.device = device
        base = torch.optim.SGD(self.model.parameters(), lr=cfg["lr"] * hvd.size(),
                               momentum=cfg["momentum"], weight_decay=cfg["wd"])
        self.optimizer = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters())

    def sync_start(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def set_lr(self, lr):
        for g in self.optimizer.param_groups:
            g["lr"] = lr

    def train_epoch(self, loader, epoch):
        self.model.train()
        m = Meter("train_loss")
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            m.update(loss.item(), x.size(0))
        return m.global_avg()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        loss, acc = Meter("val_loss"), Meter("val_acc")
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss.update(F.cross_entropy(out, y).item(), x.size(0))
            acc.update((out.argmax(1) == y).float().mean().item(), x.size(0))
        return loss.global_avg(), acc.global_avg()
