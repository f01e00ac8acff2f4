import copy
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

# only the first worker writes logs
_is_main = hvd.rank() == 0


class Trainer:
    def __init__(self, net, cfg):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.net = net.to(self.device)
        self.ema = copy.deepcopy(self.net).eval().requires_grad_(False)
        opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.net.named_parameters(),
                                            compression=hvd.Compression.fp16)
        betas = torch.linspace(cfg.beta_start, cfg.beta_end, cfg.timesteps)
        self.alpha_bar = torch.cumprod(1 - betas, 0).to(self.device)
        self.step = 0

    def sync(self):
        hvd.broadcast_parameters(self.net.state_dict(), root_rank=0)
        hvd.broadcast_parameters(self.ema.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)
        self.step = hvd.broadcast_object(self.step, root_rank=0)

    def loss_fn(self, x0):
        t = torch.randint(0, self.cfg.timesteps, (x0.shape[0],), device=self.device)
        noise = torch.randn_like(x0)
        ab = self.alpha_bar[t][:, None, None, None]
        return F.mse_loss(self.net(ab.sqrt() * x0 + (1 - ab).sqrt() * noise, t), noise)

    @torch.no_grad()
    def update_ema(self):
        for pe, p in zip(self.ema.parameters(), self.net.parameters()):
            pe.mul_(self.cfg.ema_decay).add_(p.detach(), alpha=1 - self.cfg.ema_decay)

    def train_step(self, x0):
        for g in self.opt.param_groups:
            g["lr"] = self.cfg.lr * min(1.0, (self.step + 1) / self.cfg.warmup)
        self.opt.zero_grad()
        loss = self.loss_fn(x0)
        loss.backward()
        self.opt.synchronize()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.cfg.grad_clip)
        with self.opt.skip_synchronize():
            self.opt.step()
        self.update_ema()
        self.step += 1
        return loss.detach()

    def run(self, loader, sampler):
        epoch = 0
        while self.step < self.cfg.total_steps:
            sampler.set_epoch(epoch)
            for x0, _ in loader:
                loss = self.train_step(x0.to(self.device))
                if self.step % self.cfg.log_every == 0:
                    loss = hvd.allreduce(loss, name="loss").item()
                    if _is_main:
                        print(f"step {self.step} loss {loss:.4f}", flush=True)
                if self.step % self.cfg.save_every == 0:
                    self.save()
                if self.step >= self.cfg.total_steps:
                    break
            epoch += 1

    def save(self):
        os.makedirs(self.cfg.workdir, exist_ok=True)
        torch.save({"net": self.net.state_dict(), "ema": self.ema.state_dict(),
                    "opt": self.opt.state_dict(), "step": self.step},
                   os.path.join(self.cfg.workdir, "ckpt.pt"))

    def load(self, path):
        if _is_main:
            state = torch.load(path, map_location=self.device)
            self.net.load_state_dict(state["net"])
            self.ema.load_state_dict(state["ema"])
            self.opt.load_state_dict(state["opt"])
            self.step = state["step"]
