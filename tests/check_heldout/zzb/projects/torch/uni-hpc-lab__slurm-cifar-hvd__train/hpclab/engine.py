import torch
import torch.nn.functional as F
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, optimizer, device, amp=False, clip=0.0):
        self.model = model
        self.device = device
        self.clip = clip
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters())
        self.scaler = torch.cuda.amp.GradScaler(enabled=amp and device.type == "cuda")

    def sync(self, root_rank=0):
        """Start every rank from root_rank's weights and optimizer state."""
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=root_rank)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=root_rank)

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.scaler.is_enabled()):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            if self.clip > 0:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            total += loss.item()
            n += 1
        return total / max(n, 1)

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        stats = torch.zeros(3)
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            stats[0] += F.cross_entropy(out, y, reduction="sum").item()
            stats[1] += (out.argmax(1) == y).sum().item()
            stats[2] += y.numel()
        stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
        return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()
