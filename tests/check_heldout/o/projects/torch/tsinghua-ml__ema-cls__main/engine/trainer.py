import copy
import math
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd


class ModelEMA:
    """Exponential moving average of the weights (and buffers) of a model."""

    def __init__(self, model, decay=0.999):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        msd = model.state_dict()
        for k, v in self.module.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(self.decay).add_(msd[k].detach(), alpha=1 - self.decay)
            else:
                v.copy_(msd[k])


def warmup_cosine(step, total, warmup, base_lr, min_lr=0.0):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    t = (step - warmup) / max(1, total - warmup)
    return min_lr + 0.5 * (base_lr - min_lr) * (1 + math.cos(math.pi * t))


class Trainer:
    def __init__(self, model, optimizer, cfg, device, ema=None):
        self.model = model
        self.optimizer = optimizer
        self.cfg = cfg
        self.device = device
        self.ema = ema
        self.step = 0

    def set_lr(self, total_steps):
        lr = warmup_cosine(self.step, total_steps, self.cfg["warmup_steps"], self.cfg["lr"])
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        return lr

    def train_epoch(self, loader, epoch, total_steps):
        self.model.train()
        t0, seen, loss_sum = time.time(), 0, 0.0
        for x, y in loader:
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            lr = self.set_lr(total_steps)
            loss = F.cross_entropy(self.model(x), y, label_smoothing=self.cfg["label_smoothing"])
            self.optimizer.zero_grad()
            loss.backward()
            if self.cfg["clip_grad"] > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["clip_grad"])
            self.optimizer.step()
            if self.ema is not None:
                self.ema.update(self.model)
            self.step += 1
            seen += x.size(0)
            loss_sum += loss.item() * x.size(0)
            if self.step % self.cfg["log_every"] == 0 and hvd.rank() == 0:
                print(f"ep {epoch} it {self.step} loss {loss.item():.4f} lr {lr:.4f} "
                      f"{seen / (time.time() - t0):.0f} img/s")
        return loss_sum / max(seen, 1)

    @torch.no_grad()
    def evaluate(self, loader, use_ema=True):
        net = self.ema.module if (use_ema and self.ema is not None) else self.model
        net.eval()
        correct = torch.zeros(1)
        total = torch.zeros(1)
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            correct += (net(x).argmax(1) == y).sum().item()
            total += y.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="eval_correct")
        total = hvd.allreduce(total, op=hvd.Sum, name="eval_total")
        return (correct / total).item()
