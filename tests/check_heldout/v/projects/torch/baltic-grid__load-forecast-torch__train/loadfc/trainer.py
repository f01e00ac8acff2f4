import os

import torch
import torch.nn.functional as F

from loadfc import dist


class Trainer:
    def __init__(self, cfg, model, optimizer, train_loader, val_loader, device):
        self.cfg, self.model, self.device = cfg, model, device
        self.optimizer = dist.distribute(model, optimizer)
        self.train_loader, self.val_loader = train_loader, val_loader
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=cfg.epochs)

    def train_epoch(self, epoch):
        self.model.train()
        torch.manual_seed(self.cfg.seed + epoch)
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.huber_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self):
        """Per-worker MAE over its equal-sized validation chunk, then the mean over workers."""
        self.model.eval()
        abs_err, n = 0.0, 0
        for x, y in self.val_loader:
            pred = self.model(x.to(self.device)).cpu()
            abs_err += (pred - y).abs().sum().item()
            n += y.numel()
        return dist.mean_across_workers(abs_err / max(n, 1), name="val_mae")

    def save(self, epoch, val_mae):
        if not dist.is_chief():
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "val_mae": val_mae, "model": self.model.state_dict()},
                   os.path.join(self.cfg.out_dir, "tcn_last.pt"))

    def fit(self):
        for epoch in range(self.cfg.epochs):
            train_loss = self.train_epoch(epoch)
            val_mae = self.evaluate()
            if dist.is_chief():
                print(f"epoch {epoch:02d} train_huber {train_loss:.4f} val_mae {val_mae:.4f}")
            self.save(epoch, val_mae)
