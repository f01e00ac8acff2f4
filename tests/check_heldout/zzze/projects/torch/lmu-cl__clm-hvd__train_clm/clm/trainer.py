import math
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .data import rank_indices


class Trainer:
    def __init__(self, cfg, model, optimizer, train_set, val_set, micro_bs, device):
        self.cfg, self.model, self.opt = cfg, model, optimizer
        self.train_set, self.val_set = train_set, val_set
        self.micro_bs, self.device = micro_bs, device
        self.step = 0
        self.peak_lr = cfg.lr

    def lr_at(self, step):
        c = self.cfg
        if step < c.warmup:
            return self.peak_lr * (step + 1) / c.warmup
        return 0.5 * self.peak_lr * (1 + math.cos(math.pi * min(1.0, (step - c.warmup) / (c.steps - c.warmup))))

    def sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)

    def maybe_resume(self):
        if hvd.rank() == 0 and self.cfg.resume and os.path.isfile(self.cfg.resume):
            ck = torch.load(self.cfg.resume, map_location="cpu")
            self.model.load_state_dict(ck["model"])
            self.opt.load_state_dict(ck["optimizer"])
            self.step = ck["step"]
        self.step = hvd.broadcast_object(self.step, root_rank=0, name="step")

    def save(self):
        if hvd.rank() == 0:
            os.makedirs(self.cfg.out, exist_ok=True)
            torch.save({"model": self.model.state_dict(), "optimizer": self.opt.state_dict(),
                        "step": self.step}, os.path.join(self.cfg.out, f"clm_{self.step}.pt"))

    def _loss(self, x, y, reduction="mean"):
        logits = self.model(x.to(self.device))
        return F.cross_entropy(logits.flatten(0, 1), y.to(self.device).flatten(), reduction=reduction)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        nll, ntok = 0.0, 0
        idx = rank_indices(len(self.val_set), hvd.rank(), hvd.size(), shuffle=False)
        for x, y in self.val_set.batches(idx, self.micro_bs):
            nll += self._loss(x, y, reduction="sum").item()
            ntok += y.numel()
        self.model.train()
        nll = hvd.allreduce(torch.tensor(nll), op=hvd.Sum, name="val_nll").item()
        return math.exp(nll / ntok)

    def fit(self):
        c, epoch = self.cfg, 0
        while self.step < c.steps:
            idx = rank_indices(len(self.train_set), hvd.rank(), hvd.size(), epoch=epoch)
            for k, (x, y) in enumerate(self.train_set.batches(idx, self.micro_bs)):
                (self._loss(x, y) / c.accum).backward()
                if (k + 1) % c.accum:
                    continue
                for g in self.opt.param_groups:
                    g["lr"] = self.lr_at(self.step)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
                self.opt.step()
                self.opt.zero_grad()
                self.step += 1
                if self.step % c.eval_every == 0:
                    ppl = self.evaluate()
                    if hvd.rank() == 0:
                        print(f"step {self.step}: val ppl {ppl:.2f}", flush=True)
                if self.step % c.save_every == 0:
                    self.save()
                if self.step >= c.steps:
                    return
            epoch += 1
