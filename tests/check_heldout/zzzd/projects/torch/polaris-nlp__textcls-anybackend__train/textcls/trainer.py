import logging
import os
import time

import torch
import torch.nn.functional as F

from . import dist_utils

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, cfg, model, optimizer, scheduler, train_loader, val_loader, device):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device

    def train_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        t0 = time.time()
        for step, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            if step % self.cfg.log_every == 0 and dist_utils.is_main_process():
                log.info("epoch %d step %d loss %.4f (%.1fs)", epoch, step, loss.item(), time.time() - t0)
        self.scheduler.step()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        stats = torch.zeros(3, dtype=torch.float64)  # loss sum, correct, count
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x)
            stats[0] += F.cross_entropy(logits, y, reduction="sum").item()
            stats[1] += (logits.argmax(-1) == y).sum().item()
            stats[2] += y.numel()
        stats = dist_utils.all_reduce_sum(stats, name="val_stats")
        return {"val_loss": (stats[0] / stats[2]).item(), "val_acc": (stats[1] / stats[2]).item()}

    def save(self, epoch, metrics):
        if not dist_utils.is_main_process():
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        model = self.model.module if hasattr(self.model, "module") else self.model
        torch.save({"epoch": epoch, "model": model.state_dict(), "metrics": metrics,
                    "config": self.cfg.to_dict()}, os.path.join(self.cfg.out_dir, "last.pt"))
