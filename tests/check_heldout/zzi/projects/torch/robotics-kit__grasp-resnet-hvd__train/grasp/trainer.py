import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, scheduler, device, amp=True):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.amp = amp and device.type == "cuda"
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.amp)

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for depth, label in loader:
            depth, label = depth.to(self.device, non_blocking=True), label.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(device_type=self.device.type, enabled=self.amp):
                loss = F.binary_cross_entropy_with_logits(self.model(depth).squeeze(1), label)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            total += loss.item() * label.size(0)
            n += label.size(0)
        self.scheduler.step()
        return total / max(n, 1)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct, seen = 0, 0
        for depth, label in loader:
            depth, label = depth.to(self.device), label.to(self.device)
            pred = (self.model(depth).squeeze(1) > 0).float()
            correct += (pred == label).sum().item()
            seen += label.numel()
        return correct / max(seen, 1)
