import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F


def linear_warmup(total_steps, warmup_ratio):
    warm = max(1, int(total_steps * warmup_ratio))

    def fn(step):
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (total_steps - step) / max(1, total_steps - warm))
    return fn


class Trainer:
    def __init__(self, model, cfg, train_loader, dev_loader, device):
        self.model, self.cfg, self.device = model, cfg, device
        self.train_loader, self.dev_loader = train_loader, dev_loader
        decay = [p for n, p in model.named_parameters() if p.ndim > 1]
        no_decay = [p for n, p in model.named_parameters() if p.ndim <= 1]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                                 {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        total = cfg.epochs * len(train_loader)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, linear_warmup(total, cfg.warmup_ratio))
        self.scaler = torch.amp.GradScaler("cuda", enabled=cfg.amp and device.type == "cuda")

    def train_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        for x, mask, y in self.train_loader:
            x, mask, y = x.to(self.device), mask.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.scaler.is_enabled()):
                loss = F.cross_entropy(self.model(x, mask), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_norm)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        stats = torch.zeros(3)
        for x, mask, y in self.dev_loader:
            x, mask, y = x.to(self.device), mask.to(self.device), y.to(self.device)
            logits = self.model(x, mask)
            stats[0] += F.cross_entropy(logits, y, reduction="sum").item()
            stats[1] += (logits.argmax(-1) == y).sum().item()
            stats[2] += y.numel()
        stats = hvd.allreduce(stats, op=hvd.Sum, name="dev_stats")
        return stats[0].item() / stats[2].item(), stats[1].item() / stats[2].item()

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.cfg.out_dir, f"epoch{epoch}.pt"))
