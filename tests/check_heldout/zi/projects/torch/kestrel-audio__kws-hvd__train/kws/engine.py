import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, optimizer, device, logger, out_dir, amp=False, clip=5.0):
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.log = logger
        self.out_dir = out_dir
        self.clip = clip
        self.amp = amp and device.type == "cuda"
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.amp)
        self.best_acc = 0.0
        self.is_root = hvd.rank() == 0

    def train_epoch(self, loader, epoch):
        self.model.train()
        for step, (x, lengths, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.amp):
                loss = F.cross_entropy(self.model(x, lengths), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            if step % 50 == 0:
                self.log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        stats = torch.zeros(3)
        for x, lengths, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x, lengths)
            stats[0] += F.cross_entropy(logits, y, reduction="sum").item()
            stats[1] += (logits.argmax(1) == y).sum().item()
            stats[2] += y.numel()
        stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
        return stats[0].item() / stats[2].item(), stats[1].item() / stats[2].item()

    def save(self, epoch, acc):
        if not self.is_root:
            return False
        os.makedirs(self.out_dir, exist_ok=True)
        state = {"epoch": epoch, "model": self.model.state_dict(),
                 "optimizer": self.optimizer.state_dict(), "acc": acc}
        torch.save(state, os.path.join(self.out_dir, "last.pt"))
        improved = acc > self.best_acc
        if improved:
            self.best_acc = acc
            torch.save(state, os.path.join(self.out_dir, "best.pt"))
        return improved
