import math
import time

import torch
import torch.nn as nn
import horovod.torch as hvd


def cosine_with_warmup(optimizer, warmup_steps, total_steps):
    def f(step):
        if step < warmup_steps:
            return step / max(1, warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * (step - warmup_steps) / max(1, total_steps - warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


class Trainer:
    def __init__(self, model, cfg, device, steps_per_epoch):
        self.model, self.cfg, self.device = model, cfg, device
        decay = [p for n, p in model.named_parameters() if p.ndim > 1 and "pos" not in n]
        no_decay = [p for n, p in model.named_parameters() if p.ndim <= 1 or "pos" in n]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": cfg.weight_decay},
             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr)
        if cfg.distributed:
            self.optimizer = hvd.DistributedOptimizer(
                self.optimizer, named_parameters=model.named_parameters())
        self.scheduler = cosine_with_warmup(self.optimizer, cfg.warmup_epochs * steps_per_epoch,
                                            cfg.epochs * steps_per_epoch)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)

    def train_epoch(self, loader, epoch, log_every=50, rank=0):
        self.model.train()
        t0, n, loss_sum = time.time(), 0, 0.0
        for i, (x, y) in enumerate(loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
            self.optimizer.step()
            self.scheduler.step()
            loss_sum += loss.item() * x.size(0)
            n += x.size(0)
            if rank == 0 and i % log_every == 0:
                print(f"  [{epoch}:{i}] loss {loss.item():.4f} "
                      f"lr {self.scheduler.get_last_lr()[0]:.2e} {n / (time.time() - t0):.0f} img/s/rank",
                      flush=True)
        return loss_sum, n

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct, count = 0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            correct += (self.model(x).argmax(1) == y).sum().item()
            count += y.numel()
        return correct, count
