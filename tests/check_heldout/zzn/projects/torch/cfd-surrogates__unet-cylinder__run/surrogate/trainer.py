import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .unet import divergence


class Trainer:
    def __init__(self, model, optimizer, scheduler, cfg, stats):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and self.device.type == "cuda")
        self.mean, self.std = (s.to(self.device) for s in stats)

    def _loss(self, pred, y):
        data = F.mse_loss(pred, y)
        phys = divergence(pred[:, :2] * self.std[:2] + self.mean[:2]).pow(2).mean()
        return data + self.cfg.div_weight * phys, data, phys

    def train_epoch(self, loader, epoch):
        self.model.train()
        n_batches = len(loader)
        for i, (x, y) in enumerate(loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            with torch.autocast(device_type=self.device.type, enabled=self.scaler.is_enabled()):
                loss, _, _ = self._loss(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_grad)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step(epoch + i / n_batches)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        tot = torch.zeros(3, device=self.device)
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            _, data, phys = self._loss(self.model(x), y)
            tot += torch.stack([data * len(x), phys * len(x), torch.tensor(float(len(x)), device=self.device)])
        tot = hvd.allreduce(tot, op=hvd.Sum, name="val_sums")
        return (tot[0] / tot[2]).item(), (tot[1] / tot[2]).item()

    def save(self, path, epoch, best):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "scaler": self.scaler.state_dict(),
                    "epoch": epoch, "best": best, "config": vars(self.cfg)}, path)
