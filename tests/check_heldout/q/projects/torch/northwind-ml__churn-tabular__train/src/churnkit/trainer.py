import logging
import os

import torch
import torch.nn.functional as F

from . import distributed as dist

log = logging.getLogger("churnkit")


class Trainer:
    def __init__(self, model, optimizer, cfg, device, hooks=()):
        self.model, self.optimizer, self.cfg, self.device = model, optimizer, cfg, device
        self.hooks = list(hooks)
        self.epoch = 0

    def _call(self, event, **kw):
        for h in self.hooks:
            fn = getattr(h, event, None)
            if fn is not None:
                fn(self, **kw)

    def train_epoch(self, loader):
        self.model.train()
        total, steps = 0.0, 0
        usable = len(loader) - len(loader) % self.cfg.accum_steps  # whole accumulation windows only
        self.optimizer.zero_grad()
        for i, (x, y) in enumerate(loader):
            if i >= usable:
                break
            x, y = x.to(self.device), y.to(self.device)
            with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.cfg.amp):
                logits = self.model(x)
            loss = F.binary_cross_entropy_with_logits(logits.float(), y) / self.cfg.accum_steps
            loss.backward()
            if (i + 1) % self.cfg.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
                steps += 1
            total += loss.item() * self.cfg.accum_steps
        return total / max(1, steps * self.cfg.accum_steps)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        loss_sum, correct, n = 0.0, 0, 0
        for x, y in loader:
            logits = self.model(x.to(self.device)).float()
            y = y.to(self.device)
            loss_sum += F.binary_cross_entropy_with_logits(logits, y, reduction="sum").item()
            correct += ((logits > 0).float() == y).sum().item()
            n += len(y)
        # every rank holds the same number of validation rows, so the mean of means is the global mean
        return dist.mean(loss_sum / n, "val_loss"), dist.mean(correct / n, "val_acc")

    def fit(self, train_loader, val_loader, epochs):
        self._call("on_train_begin")
        for self.epoch in range(epochs):
            train_loss = self.train_epoch(train_loader)
            val_loss, val_acc = self.evaluate(val_loader)
            self._call("on_epoch_end", train_loss=train_loss, val_loss=val_loss, val_acc=val_acc)


class CheckpointHook:
    def __init__(self, output_dir):
        self.output_dir = output_dir

    def on_epoch_end(self, trainer, **metrics):
        if not dist.is_main():
            return
        os.makedirs(self.output_dir, exist_ok=True)
        torch.save({"epoch": trainer.epoch, "model": trainer.model.state_dict(),
                    "optimizer": trainer.optimizer.state_dict()},
                   os.path.join(self.output_dir, "last.pt"))


class LogHook:
    def on_epoch_end(self, trainer, train_loss, val_loss, val_acc):
        if dist.is_main():
            log.info("epoch %d train %.4f val %.4f acc %.4f", trainer.epoch, train_loss, val_loss, val_acc)
