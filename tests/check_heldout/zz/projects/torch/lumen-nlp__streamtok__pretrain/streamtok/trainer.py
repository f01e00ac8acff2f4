import logging
import math
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, cfg, model, optimizer, device):
        self.cfg = cfg
        self.model = model
        self.device = device
        self.is_main = cfg.rank == 0
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters(),
            compression=hvd.Compression.fp16 if cfg.fp16 else hvd.Compression.none)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_lambda)
        self.global_step = 0
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _lr_lambda(self, step):
        if step < self.cfg.warmup_steps:
            return (step + 1) / self.cfg.warmup_steps
        total = self.cfg.epochs * self.cfg.steps_per_epoch
        return 0.5 * (1 + math.cos(math.pi * min(1.0, step / total)))

    def train_epoch(self, loader, epoch):
        self.model.train()
        batches = iter(loader)
        for i in range(self.cfg.steps_per_epoch):
            x, y = next(batches)
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.sched.step()
            self.global_step += 1
            if self.is_main and i % 50 == 0:
                log.info("ep %d it %d loss %.3f lr %.2e", epoch, i, loss.item(),
                         self.sched.get_last_lr()[0])

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        total, n = 0.0, 0
        for i, (x, y) in enumerate(loader):
            if i >= self.cfg.eval_batches:
                break
            logits = self.model(x.to(self.device))
            total += F.cross_entropy(logits.reshape(-1, logits.size(-1)),
                                     y.to(self.device).reshape(-1)).item()
            n += 1
        avg = hvd.allreduce(torch.tensor(total / max(n, 1)), name="eval_loss").item()
        return avg, math.exp(min(avg, 20))

    def save(self, epoch):
        if not self.is_main:
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "step": self.global_step, "epoch": epoch},
                   os.path.join(self.cfg.out_dir, f"ckpt_{epoch:03d}.pt"))
