import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, optimizer, device, amp=True, clip=1.0, log=None):
        self.model, self.optimizer, self.device = model, optimizer, device
        self.scaler = torch.cuda.amp.GradScaler(enabled=amp)
        self.amp, self.clip, self.log = amp, clip, log

    def train_epoch(self, loader, epoch):
        self.model.train()
        for step, (feats, adj, labels) in enumerate(loader):
            feats, adj, labels = feats.to(self.device), adj.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(device_type=self.device.type, enabled=self.amp):
                loss = F.cross_entropy(self.model(feats, adj), labels)
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            if self.log and step % 50 == 0:
                self.log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = torch.zeros(1)
        total = torch.zeros(1)
        for feats, adj, labels in loader:
            pred = self.model(feats.to(self.device), adj.to(self.device)).argmax(-1).cpu()
            correct += (pred == labels).sum()
            total += labels.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
        total = hvd.allreduce(total, op=hvd.Sum, name="val_total")
        return (correct / total).item()

    def save_checkpoint(self, path, epoch, metric):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"epoch": epoch, "metric": metric, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(), "scaler": self.scaler.state_dict()}, path)
