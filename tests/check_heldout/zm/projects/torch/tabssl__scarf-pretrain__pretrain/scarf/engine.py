import math
import os

import numpy as np
import torch
import horovod.torch as hvd


class Trainer:
    def __init__(self, model, cfg, device, output_dir, steps_per_epoch):
        self.model, self.cfg, self.device = model, cfg, device
        self.output_dir = output_dir
        self.is_master = hvd.rank() == 0
        self.steps_per_epoch = steps_per_epoch
        # linear scaling rule: lr grows with the total batch over all workers
        self.peak_lr = cfg.base_lr * cfg.batch_size * hvd.size() / 256
        params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        opt = torch.optim.AdamW([p for _, p in params], lr=self.peak_lr, weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=params)

    def lr_at(self, step):
        warm = self.cfg.warmup_epochs * self.steps_per_epoch
        total = self.cfg.epochs * self.steps_per_epoch
        if step < warm:
            return self.peak_lr * (step + 1) / warm
        return 0.5 * self.peak_lr * (1 + math.cos(math.pi * (step - warm) / max(total - warm, 1)))

    def sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader, epoch):
        self.model.train()
        total = 0.0
        for i, (v1, v2) in enumerate(loader):
            for g in self.optimizer.param_groups:
                g["lr"] = self.lr_at(epoch * self.steps_per_epoch + i)
            loss, keys = self.model(v1.to(self.device), v2.to(self.device))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.model.enqueue(hvd.allgather(keys.detach()))
            total += loss.item()
        mean = torch.tensor(total / max(len(loader), 1))
        return hvd.allreduce(mean, name="epoch_loss").item()

    @torch.no_grad()
    def linear_probe(self, x, y, steps=200):
        self.model.eval()
        z = self.model.encoder_q(torch.from_numpy(x).to(self.device))
        yt = torch.from_numpy(y).long().to(self.device)
        head = torch.nn.Linear(z.shape[1], int(y.max()) + 1).to(self.device)
        opt = torch.optim.LBFGS(head.parameters(), max_iter=steps)
        with torch.enable_grad():
            def closure():
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(head(z), yt)
                loss.backward()
                return loss
            opt.step(closure)
        return float((head(z).argmax(1) == yt).float().mean())

    def save(self, epoch):
        os.makedirs(self.output_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.output_dir, "checkpoint.pt"))

    def load(self, path):
        ckpt = torch.load(path, map_location="cpu")
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        return ckpt["epoch"] + 1
