import os

import torch
import torch.nn.functional as F

from .dist import global_mean, is_root


class Trainer:
    def __init__(self, model, optimizer, device, cfg):
        self.model, self.optimizer, self.device, self.cfg = model, optimizer, device, cfg

    def train_epoch(self, loader, epoch):
        self.model.train()
        for i, (x, y) in enumerate(loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            if i % 50 == 0 and is_root():
                print(f"[{epoch}] step {i}/{len(loader)} loss {loss.item():.3f}", flush=True)

    @torch.no_grad()
    def evaluate(self, loader, epoch):
        self.model.eval()
        loss_sum, correct, seen = 0.0, 0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            seen += y.numel()
        # totals over all ranks, then divide: exact even if the last shard is padded differently
        tot_loss = global_mean(loss_sum, "val_loss_sum")
        tot_correct = global_mean(correct, "val_correct")
        tot_seen = global_mean(seen, "val_seen")
        if is_root():
            print(f"[{epoch}] val loss {tot_loss / tot_seen:.4f} acc {100.0 * tot_correct / tot_seen:.2f}%")

    def maybe_save(self, epoch):
        if not is_root() or (epoch + 1) % self.cfg.save_every:
            return
        os.makedirs(self.cfg.ckpt_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.cfg.ckpt_dir, f"resnet18_e{epoch:03d}.pt"))
