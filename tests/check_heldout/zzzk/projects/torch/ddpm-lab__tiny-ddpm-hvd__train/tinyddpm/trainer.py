import copy
import math
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from . import dist


def make_betas(schedule, T):
    if schedule == "linear":
        return torch.linspace(1e-4, 0.02, T)
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + 0.008) / 1.008 * math.pi / 2) ** 2
    return torch.clamp(1 - f[1:] / f[:-1], max=0.999).float()


class EMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = copy.deepcopy(model).eval()
        for p in self.shadow.parameters():
            p.requires_grad_(False)

    def reset(self, model):
        self.shadow.load_state_dict(model.state_dict())

    @torch.no_grad()
    def update(self, model):
        for s, p in zip(self.shadow.parameters(), model.parameters()):
            s.mul_(self.decay).add_(p.detach(), alpha=1 - self.decay)


class DDPMTrainer:
    def __init__(self, args, model, optimizer):
        self.args = args
        self.model = model
        self.optimizer = optimizer
        self.ema = EMA(model, args.ema_decay)
        betas = make_betas(args.beta_schedule, args.timesteps)
        self.alphas_bar = torch.cumprod(1 - betas, 0).to(args.device)
        self.ckpt_path = os.path.join(args.out_dir, "ckpt.pt")

    def loss_fn(self, x0):
        t = torch.randint(0, self.args.timesteps, (x0.shape[0],), device=x0.device)
        noise = torch.randn_like(x0)
        ab = self.alphas_bar[t].view(-1, 1, 1, 1)
        xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        return F.mse_loss(self.model(xt, t), noise)

    def train_epoch(self, loader, step):
        args = self.args
        self.model.train()
        running, n = 0.0, 0
        # drop the micro-batches that would not fill a whole accumulation group
        usable = len(loader) - len(loader) % args.accum_steps
        self.optimizer.zero_grad()
        for i, x0 in enumerate(loader):
            if i >= usable:
                break
            x0 = x0.to(args.device, non_blocking=True)
            loss = self.loss_fn(x0) / args.accum_steps
            loss.backward()
            running += loss.item()
            if (i + 1) % args.accum_steps != 0:
                continue
            self.optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.grad_clip)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            self.optimizer.zero_grad()
            self.ema.update(self.model)
            step += 1
            n += 1
            if step % args.log_every == 0:
                avg = dist.mean_scalar(running / n, "train_loss")
                if dist.is_main():
                    print(f"step {step} loss {avg:.5f}", flush=True)
                running, n = 0.0, 0
            if step % args.save_every == 0:
                self.save(step)
            if step >= args.total_steps:
                break
        return step

    def save(self, step, final=False):
        if not dist.is_main():
            return
        os.makedirs(self.args.out_dir, exist_ok=True)
        state = {
            "step": step,
            "model": self.model.state_dict(),
            "ema": self.ema.shadow.state_dict(),
            "optimizer": self.optimizer.state_dict(),
        }
        torch.save(state, self.ckpt_path + ".tmp")
        os.replace(self.ckpt_path + ".tmp", self.ckpt_path)
        if final:
            torch.save(self.ema.shadow.state_dict(), os.path.join(self.args.out_dir, "ema_final.pt"))

    def maybe_resume(self):
        step = 0
        if self.args.resume and os.path.exists(self.ckpt_path):
            state = torch.load(self.ckpt_path, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            step = state["step"]
        # every rank reads the file if it exists; the step must agree anyway
        return hvd.broadcast_object(step, root_rank=0, name="resume_step")
