import time
import torch
import horovod.torch as hvd

from .metrics import MetricCollection
from .ckpt import save_checkpoint


class ExponentialMovingAverage:
    def __init__(self, params, decay):
        self.params = list(params)
        self.decay = decay
        self.shadow = [p.detach().clone() for p in self.params]

    @torch.no_grad()
    def update(self):
        for s, p in zip(self.shadow, self.params):
            s.lerp_(p.detach(), 1.0 - self.decay)

    def state_dict(self):
        return {"decay": self.decay, "shadow": self.shadow}

    @torch.no_grad()
    def swap(self):
        for s, p in zip(self.shadow, self.params):
            tmp = p.detach().clone()
            p.copy_(s)
            s.copy_(tmp)


class Engine:
    def __init__(self, model, optimizer, cfg, device="cpu"):
        self.model, self.opt, self.cfg, self.device = model, optimizer, cfg, device
        self.ema = ExponentialMovingAverage(model.parameters(), cfg.ema_decay)
        self.sched = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.8, patience=10)
        self.val_metrics = MetricCollection("energy_per_atom", "forces")

    def _forward(self, b, train=True):
        pos = b["pos"].requires_grad_(True)
        e = self.model(b["z"], pos, b["idx"], b["energy"].shape[0])
        f = -torch.autograd.grad(e, pos, grad_outputs=torch.ones_like(e), create_graph=train)[0]
        return e, f

    def train_one_epoch(self, loader):
        self.model.train()
        tot, n = 0.0, 0
        for b in loader:
            b = {k: v.to(self.device) for k, v in b.items()}
            self.opt.zero_grad()
            e, f = self._forward(b)
            loss = self.cfg.w_energy * ((e - b["energy"]) ** 2).mean() + \
                self.cfg.w_forces * ((f - b["forces"]) ** 2).sum(-1).mean()
            loss.backward()
            self.opt.synchronize()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
            with self.opt.skip_synchronize():
                self.opt.step()
            self.ema.update()
            tot += loss.item()
            n += 1
        return tot / max(n, 1)

    def validate(self, loader):
        self.model.eval()
        self.ema.swap()
        self.val_metrics.reset()
        for b in loader:
            b = {k: v.to(self.device) for k, v in b.items()}
            e, f = self._forward(b, train=False)
            self.val_metrics["energy_per_atom"].update(e, b["energy"], norm=b["natoms"])
            self.val_metrics["forces"].update(f, b["forces"])
        self.ema.swap()
        return self.val_metrics.compute()

    def fit(self, train_loader, val_loader, start_epoch=0):
        for epoch in range(start_epoch, self.cfg.epochs):
            train_loader.sampler.set_epoch(epoch)
            t0 = time.time()
            train_loss = self.train_one_epoch(train_loader)
            val = self.validate(val_loader)
            self.sched.step(val["forces"])
            if hvd.rank() == 0:
                print(f"epoch {epoch:4d} loss {train_loss:.5f} "
                      f"E/atom MAE {val['energy_per_atom']:.4f} F MAE {val['forces']:.4f} "
                      f"lr {self.opt.param_groups[0]['lr']:.2e} {time.time() - t0:.1f}s", flush=True)
            save_checkpoint(self.cfg.ckpt_dir, epoch, self.model, self.opt,
                            ema_state=self.ema.state_dict(), metrics=val)
