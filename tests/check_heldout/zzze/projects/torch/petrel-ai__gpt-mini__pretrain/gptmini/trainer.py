import math

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .schedule import warmup_cosine


class Trainer:
    def __init__(self, model, optimizer, cfg, device, log):
        self.model, self.opt, self.cfg = model, optimizer, cfg
        self.device, self.log = device, log
        self.accum = cfg["optim"]["accum"]
        self.use_amp = cfg["train"]["amp"] and device.type == "cuda"
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.use_amp)
        self.base_lr = optimizer.param_groups[0]["lr"]
        self.step = 0

    def set_lr(self):
        o = self.cfg["optim"]
        lr = warmup_cosine(self.step, self.base_lr, o["warmup"], o["total_steps"])
        for g in self.opt.param_groups:
            g["lr"] = lr
        return lr

    def loss_on(self, x, y):
        with torch.autocast(self.device.type, enabled=self.use_amp):
            logits = self.model(x.to(self.device))
            return F.cross_entropy(logits.flatten(0, 1), y.to(self.device).flatten())

    def train_step(self, micro_batches):
        lr = self.set_lr()
        for x, y in micro_batches:
            loss = self.loss_on(x, y) / self.accum
            self.scaler.scale(loss).backward()
        self.opt.synchronize()
        self.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        with self.opt.skip_synchronize():
            self.scaler.step(self.opt)
        self.scaler.update()
        self.opt.zero_grad()
        self.step += 1
        return loss.item() * self.accum, lr

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        tot, n = 0.0, 0
        for x, y in loader:
            tot += self.loss_on(x, y).item()
            n += 1
        self.model.train()
        avg = hvd.allreduce(torch.tensor(tot / max(n, 1)), name="val_loss").item()
        return avg, math.exp(avg)
