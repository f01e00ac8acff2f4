import copy
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .distributed import global_mean, is_main


class Trainer:
    def __init__(self, cfg, model, train_loader, val_loader, device, stats):
        self.cfg, self.model, self.device, self.stats = cfg, model, device, stats
        self.train_loader, self.val_loader = train_loader, val_loader
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.base_lr * hvd.size(),
                                weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / cfg.warmup_steps))
        self.start_epoch, self.step = 0, 0
        if cfg.resume and is_main():
            ckpt = torch.load(cfg.resume, map_location="cpu", weights_only=False)
            model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.scheduler.load_state_dict(ckpt["scheduler"])
            self.start_epoch, self.step = ckpt["epoch"] + 1, ckpt["step"]
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.start_epoch, self.step, sched = hvd.broadcast_object(
            (self.start_epoch, self.step, self.scheduler.state_dict()), root_rank=0)
        self.scheduler.load_state_dict(sched)
        self.ema = copy.deepcopy(model).eval()

    @torch.no_grad()
    def update_ema(self):
        for pe, p in zip(self.ema.parameters(), self.model.parameters()):
            pe.mul_(self.cfg.ema_decay).add_(p.detach(), alpha=1 - self.cfg.ema_decay)

    def train_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        for obs, act in self.train_loader:
            obs, act = obs.to(self.device), act.to(self.device)
            loss = F.mse_loss(self.model(obs), act)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            self.update_ema()
            self.step += 1
            if is_main() and self.step % self.cfg.log_every == 0:
                print(f"epoch {epoch} step {self.step} loss {loss.item():.4f}", flush=True)

    @torch.no_grad()
    def validate(self):
        total, count = 0.0, 0
        for obs, act in self.val_loader:
            pred = self.ema(obs.to(self.device))
            total += F.mse_loss(pred, act.to(self.device), reduction="sum").item() / act.shape[-1]
            count += act.shape[0] * act.shape[1]
        return global_mean(total, count, "val_mse")

    def save(self, epoch):
        if not is_main():
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "ema": self.ema.state_dict(),
                    "optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(),
                    "epoch": epoch, "step": self.step, "action_stats": self.stats},
                   os.path.join(self.cfg.out_dir, "last.pt"))
