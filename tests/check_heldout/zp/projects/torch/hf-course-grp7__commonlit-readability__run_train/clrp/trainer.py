import os

import torch
import horovod.torch as hvd

from .metrics import global_rmse


class Trainer:
    def __init__(self, model, cfg, train_loader, valid_loader, device, sampler=None):
        self.model, self.cfg, self.device = model, cfg, device
        self.train_loader, self.valid_loader, self.sampler = train_loader, valid_loader, sampler
        no_decay = ("bias", "LayerNorm.weight")
        groups = [
            {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
             "weight_decay": cfg.weight_decay},
            {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)],
             "weight_decay": 0.0},
        ]
        self.optimizer = torch.optim.AdamW(groups, lr=cfg.lr)
        if cfg.grad_accum > 1:
            # accumulate locally, allreduce once every grad_accum backward passes
            self.optimizer = hvd.DistributedOptimizer(
                self.optimizer, named_parameters=model.named_parameters(),
                backward_passes_per_step=cfg.grad_accum)
        total = cfg.epochs * len(train_loader) // cfg.grad_accum
        warm = int(cfg.warmup_ratio * total)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min(1.0, (s + 1) / max(warm, 1)) * max(0.0, (total - s) / total))
        self.best = float("inf")
        self.step = 0

    def sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        sse, n = 0.0, 0
        for tok, off, y in self.valid_loader:
            pred = self.model(tok.to(self.device), off.to(self.device)).cpu()
            sse += ((pred - y) ** 2).sum().item()
            n += len(y)
        self.model.train()
        return global_rmse(sse, n)

    def save(self, name="best.pt"):
        if hvd.rank() == 0:
            os.makedirs(self.cfg.output_dir, exist_ok=True)
            torch.save({"model": self.model.state_dict(), "step": self.step, "best": self.best},
                       os.path.join(self.cfg.output_dir, name))

    def fit(self, log=print):
        self.model.train()
        for epoch in range(self.cfg.epochs):
            if self.sampler is not None:
                self.sampler.set_epoch(epoch)
            for i, (tok, off, y) in enumerate(self.train_loader):
                loss = torch.nn.functional.mse_loss(self.model(tok.to(self.device), off.to(self.device)),
                                                    y.to(self.device))
                (loss / self.cfg.grad_accum).backward()
                if (i + 1) % self.cfg.grad_accum == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    self.scheduler.step()
                    self.step += 1
                    if self.step % self.cfg.eval_every == 0:
                        rmse = self.evaluate()
                        if rmse < self.best:
                            self.best = rmse
                            self.save()
                        log(f"epoch {epoch} step {self.step} loss {loss.item():.4f} val_rmse {rmse:.4f}")
        return self.best
