import json
import os

import torch
import horovod.torch as hvd

from .model import pinball, breach_rate


class Trainer:
    def __init__(self, model, cfg, steps_per_epoch):
        self.model, self.cfg = model, cfg
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.base_lr * hvd.size(), weight_decay=1e-5)
        self.opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                            compression=hvd.Compression.fp16)
        warm = cfg.warmup_epochs * steps_per_epoch
        self.sched = torch.optim.lr_scheduler.LambdaLR(
            self.opt, lambda s: min(1.0, (s + 1) / warm) if warm else 1.0)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)

    def fit(self, train_loader, val_loader, sampler=None):
        history = []
        for epoch in range(self.cfg.epochs):
            if sampler is not None:
                sampler.set_epoch(epoch)
            self.model.train()
            for x, y in train_loader:
                self.opt.zero_grad()
                loss = pinball(self.model(x), y, self.model.q)
                loss.backward()
                self.opt.step()
                self.sched.step()
            stats = self.validate(val_loader)
            history.append(stats)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: " + " ".join(f"{k}={v:.4f}" for k, v in stats.items()), flush=True)
                self.save(epoch, stats)
        return history

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        tot = torch.zeros(2 + len(self.cfg.quantiles), dtype=torch.float64)
        for x, y in loader:
            p = self.model(x)
            tot[0] += pinball(p, y, self.model.q).item() * len(y)
            tot[1] += len(y)
            tot[2:] += breach_rate(p, y).double() * len(y)
        tot = hvd.allreduce(tot, op=hvd.Sum, name="val_tot")
        out = {"pinball": (tot[0] / tot[1]).item()}
        for q, b in zip(self.cfg.quantiles, tot[2:] / tot[1]):
            out[f"breach@{q}"] = b.item()
        return out

    def save(self, epoch, stats):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict()},
                   os.path.join(self.cfg.out_dir, "quantile_gru.pt"))
        with open(os.path.join(self.cfg.out_dir, "metrics.jsonl"), "a") as f:
            f.write(json.dumps({"epoch": epoch, **stats}) + "\n")
