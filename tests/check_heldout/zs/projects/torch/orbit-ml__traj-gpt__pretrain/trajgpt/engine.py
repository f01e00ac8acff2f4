import math
import os

import torch
import horovod.torch as hvd


class Engine:
    def __init__(self, cfg, model):
        self.cfg, self.model = cfg, model
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                 {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.95))
        self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                            backward_passes_per_step=cfg.grad_accum)
        self.iter, self.epoch = 0, 0
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)
        if hvd.rank() == 0:
            self.maybe_resume()

    def ckpt_path(self):
        return os.path.join(self.cfg.out_dir, "ckpt.pt")

    def maybe_resume(self):
        path = self.ckpt_path() if self.cfg.resume == "auto" else self.cfg.resume
        if path and os.path.exists(path):
            sd = torch.load(path, map_location="cpu", weights_only=False)
            self.model.load_state_dict(sd["model"])
            self.opt.load_state_dict(sd["opt"])
            self.iter, self.epoch = sd["iter"], sd["epoch"]
            print(f"resumed from {path} at iter {self.iter}")

    def lr_at(self, it):
        c = self.cfg
        if it < c.warmup_iters:
            return c.lr * (it + 1) / c.warmup_iters
        total = c.epochs * c.iters_per_epoch
        ratio = min(1.0, (it - c.warmup_iters) / max(1, total - c.warmup_iters))
        return c.min_lr + 0.5 * (1 + math.cos(math.pi * ratio)) * (c.lr - c.min_lr)

    def save(self, tokenizer_edges):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(), "iter": self.iter,
                    "epoch": self.epoch, "edges": tokenizer_edges, "cfg": vars(self.cfg)}, self.ckpt_path())
