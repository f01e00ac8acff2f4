import os

import torch
import horovod.torch as hvd

from .rays import render_rays
from .utils import ensure_dir, mse2psnr


class Trainer:
    def __init__(self, model, cfg, device):
        self.model = model.to(device)
        self.cfg = cfg
        self.device = device
        self.global_step = 0
        base = torch.optim.Adam(self.model.parameters(), lr=cfg.lrate * hvd.size(), betas=(0.9, 0.999))
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(base, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters())

    def update_lr(self):
        decay = 0.1 ** (self.global_step / (self.cfg.lrate_decay * 1000))
        for g in self.optimizer.param_groups:
            g["lr"] = self.cfg.lrate * hvd.size() * decay

    def train_step(self, batch):
        batch = batch.to(self.device)
        rgb = render_rays(self.model, batch[:, 0:3], batch[:, 3:6], n_samples=self.cfg.n_samples)
        loss = torch.mean((rgb - batch[:, 6:9]) ** 2)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.global_step += 1
        self.update_lr()
        return loss.item()

    @torch.no_grad()
    def eval_image(self, rays, chunk=4096):
        self.model.eval()
        err = 0.0
        for k in range(0, rays.shape[0], chunk):
            b = rays[k:k + chunk].to(self.device)
            rgb = render_rays(self.model, b[:, 0:3], b[:, 3:6], n_samples=self.cfg.n_samples, perturb=False)
            err += torch.sum((rgb - b[:, 6:9]) ** 2).item()
        self.model.train()
        return mse2psnr(err / (rays.shape[0] * 3))

    def save(self):
        path = os.path.join(ensure_dir(os.path.join(self.cfg.basedir, self.cfg.expname)),
                            f"{self.global_step:06d}.tar")
        torch.save({"global_step": self.global_step, "network_fn_state_dict": self.model.state_dict(),
                    "optimizer_state_dict": self.optimizer.state_dict()}, path)
        return path
