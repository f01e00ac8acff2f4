import os
import time

import torch
import torch.nn.functional as F

from . import dist


class Trainer:
    def __init__(self, cfg, model, optimizer, scheduler, device, train_loader, train_sampler, val_loader):
        self.cfg = cfg
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.device = device
        self.train_loader, self.train_sampler, self.val_loader = train_loader, train_sampler, val_loader
        self.amp = cfg["train"]["amp"] and device.type == "cuda"
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.amp)
        self.start_epoch = 0

    # ------------------------------------------------------------------ checkpoints
    def ckpt_path(self, tag):
        return os.path.join(self.cfg["output_dir"], f"{tag}.pth")

    def save(self, tag, epoch):
        if not dist.is_master():
            return
        os.makedirs(self.cfg["output_dir"], exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "scaler": self.scaler.state_dict(),
                    "epoch": epoch}, self.ckpt_path(tag))

    def resume(self, path):
        epoch = 0
        if path and dist.is_master():
            state = torch.load(path, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            epoch = state["epoch"] + 1
        # every rank takes rank 0's weights, optimizer state and epoch (also on a fresh start)
        self.start_epoch = dist.sync_state(self.model, self.optimizer, epoch)
        for _ in range(self.start_epoch * len(self.train_loader)):
            self.scheduler.step()

    # ------------------------------------------------------------------ loops
    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        t0 = time.time()
        for it, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type="cuda", enabled=self.amp):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["train"]["clip_grad"])
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            if it % 50 == 0 and dist.is_master():
                print(f"epoch {epoch} it {it}/{len(self.train_loader)} loss {loss.item():.4f} "
                      f"lr {self.optimizer.param_groups[0]['lr']:.5f} ({time.time() - t0:.0f}s)")

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        stats = torch.zeros(3, device=self.device)
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x)
            stats[0] += F.cross_entropy(logits, y, reduction="sum")
            stats[1] += (logits.argmax(1) == y).sum()
            stats[2] += y.numel()
        stats = dist.sum_tensor(stats, "val_stats")
        return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()

    def fit(self):
        best = 0.0
        for epoch in range(self.start_epoch, self.cfg["train"]["epochs"]):
            self.train_epoch(epoch)
            val_loss, val_acc = self.evaluate()
            if dist.is_master():
                print(f"epoch {epoch}: val_loss {val_loss:.4f} val_acc {val_acc:.4f}")
            if val_acc > best:
                best = val_acc
                self.save("best", epoch)
            if (epoch + 1) % self.cfg["train"]["ckpt_every"] == 0:
                self.save(f"epoch_{epoch:03d}", epoch)
        return best
