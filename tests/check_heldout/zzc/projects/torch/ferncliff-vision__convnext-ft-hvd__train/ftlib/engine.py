import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader, val_loader, train_sampler,
                 device, out_dir, patience=5):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.train_loader, self.val_loader = train_loader, val_loader
        self.train_sampler = train_sampler
        self.device, self.out_dir, self.patience = device, out_dir, patience

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        running = 0.0
        for step, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y, label_smoothing=0.1)
            loss.backward()
            self.optimizer.step()
            running += loss.item()
        self.scheduler.step()
        return running / max(1, len(self.train_loader))

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        stats = torch.zeros(3)
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x)
            stats[0] += F.cross_entropy(logits, y, reduction="sum").item()
            stats[1] += (logits.argmax(1) == y).sum().item()
            stats[2] += y.numel()
        stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
        return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()

    def save(self, epoch, best_acc, fname):
        if hvd.rank() != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "best_acc": best_acc, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict()}, os.path.join(self.out_dir, fname))

    def fit(self, start_epoch, epochs):
        best, bad = -1.0, 0
        for epoch in range(start_epoch, epochs):
            train_loss = self.train_epoch(epoch)
            val_loss, val_acc = self.evaluate()
            log.info("epoch %d train_loss %.4f val_loss %.4f val_acc %.4f",
                     epoch, train_loss, val_loss, val_acc)
            self.save(epoch, best, "last.pth")
            if val_acc > best:
                best, bad = val_acc, 0
                self.save(epoch, best, "best.pth")
            else:
                bad += 1
                if bad >= self.patience:
                    log.info("early stopping at epoch %d", epoch)
                    break
        return best
