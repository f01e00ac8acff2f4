import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from . import dist

logger = logging.getLogger("ocrlite")


class Trainer:
    def __init__(self, model, cfg, device, train_sampler=None, optimizer=None):
        self.model = model
        self.cfg = cfg
        self.device = device
        self.train_sampler = train_sampler
        self.optimizer = optimizer or self._build_optimizer()
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_lambda)
        self.start_epoch = 0
        self.best_acc = 0.0

    def _build_optimizer(self):
        lr = self.cfg.lr * hvd.size()
        return torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=self.cfg.weight_decay)

    def _lr_lambda(self, epoch):
        if epoch < self.cfg.warmup_epochs:
            return (epoch + 1) / (self.cfg.warmup_epochs + 1)
        return 0.5 ** ((epoch - self.cfg.warmup_epochs) // 8)

    def train_epoch(self, loader, epoch):
        self.model.train()
        if self.train_sampler is not None:
            self.train_sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            if step % self.cfg.log_every == 0:
                logger.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        self.sched.step()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        correct, seen = 0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            correct += (self.model(x).argmax(1) == y).sum().item()
            seen += y.numel()
        return dist.allreduce_sum(correct, "val_correct") / dist.allreduce_sum(seen, "val_seen")

    def fit(self, train_dl, val_dl):
        for epoch in range(self.start_epoch, self.cfg.epochs):
            self.train_epoch(train_dl, epoch)
            acc = self.validate(val_dl)
            logger.info("epoch %d val_acc %.4f", epoch, acc)
            if dist.is_main() and acc > self.best_acc:
                self.best_acc = acc
                self.save(self.cfg.ckpt_path, epoch)

    def save(self, path, epoch):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "epoch": epoch, "best_acc": self.best_acc}, path)

    def load(self, path):
        ckpt = torch.load(path, map_location="cpu")
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.start_epoch = ckpt["epoch"] + 1
        self.best_acc = ckpt.get("best_acc", 0.0)
