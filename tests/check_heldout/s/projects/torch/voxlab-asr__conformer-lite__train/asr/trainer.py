import os
import time

import torch
import horovod.torch as hvd

from .models import build_model
from .optim import build_optimizer, build_scheduler


class AverageMeter:
    """Running sum/count that is reduced over all workers on read."""

    def __init__(self, name):
        self.name = name
        self.total = torch.zeros(())
        self.count = torch.zeros(())

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    def synced(self):
        total = hvd.allreduce(self.total, op=hvd.Sum, name=f"{self.name}.total")
        count = hvd.allreduce(self.count, op=hvd.Sum, name=f"{self.name}.count")
        return (total / count.clamp(min=1)).item()


class Trainer:
    def __init__(self, cfg, device):
        self.cfg = cfg
        self.device = device
        self.is_main = hvd.rank() == 0
        self.accum = cfg["optim"].get("accum_steps", 1)
        self.model = build_model(cfg).to(device)
        opt = build_optimizer(cfg, self.model, world_size=hvd.size())
        self.optimizer = hvd.DistributedOptimizer(
            opt, named_parameters=self.model.named_parameters(), backward_passes_per_step=self.accum)
        self.scheduler = build_scheduler(cfg, self.optimizer)
        self.ctc = torch.nn.CTCLoss(zero_infinity=True)
        self.epoch = 0
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _loss(self, batch):
        x, flen, y, tlen = (t.to(self.device) for t in batch)
        logp, olen = self.model(x, flen)
        return self.ctc(logp.transpose(0, 1), y, olen, tlen), x.shape[0]

    def train_epoch(self, loader, sampler):
        self.model.train()
        sampler.set_epoch(self.epoch)
        meter = AverageMeter("train_loss")
        t0 = time.time()
        # whole accumulation windows only: a partial window would leave gradients pending into the next epoch
        usable = len(loader) // self.accum * self.accum
        for i, batch in enumerate(loader):
            if i == usable:
                break
            loss, n = self._loss(batch)
            (loss / self.accum).backward()
            meter.update(loss.item(), n)
            if (i + 1) % self.accum == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.scheduler.step()
            if self.is_main and i % self.cfg["train"]["log_every"] == 0:
                print(f"epoch {self.epoch} it {i} loss {loss.item():.3f} ({time.time() - t0:.0f}s)", flush=True)
        return meter.synced()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        meter = AverageMeter("valid_loss")
        for batch in loader:
            loss, n = self._loss(batch)
            meter.update(loss.item(), n)
        return meter.synced()

    def save(self, tag="last"):
        if not self.is_main:
            return
        out = self.cfg["train"]["out_dir"]
        os.makedirs(out, exist_ok=True)
        torch.save({"epoch": self.epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, os.path.join(out, f"{tag}.pt"))

    def fit(self, train_loader, train_sampler, valid_loader):
        best = float("inf")
        for self.epoch in range(self.epoch, self.cfg["train"]["epochs"]):
            tr = self.train_epoch(train_loader, train_sampler)
            va = self.evaluate(valid_loader)
            if self.is_main:
                print(f"epoch {self.epoch}: train ctc {tr:.4f} valid ctc {va:.4f}", flush=True)
            self.save("last")
            if va < best:
                best = va
                self.save("best")
        return best
