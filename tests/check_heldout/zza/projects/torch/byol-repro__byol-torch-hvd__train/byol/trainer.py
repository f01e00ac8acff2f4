import logging
import math
import os

import torch
import horovod.torch as hvd

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, cfg, loader, device):
        self.model, self.cfg, self.loader, self.device = model, cfg, loader, device
        self.is_main = hvd.rank() == 0
        self.global_batch = cfg.batch_size * hvd.size()
        self.peak_lr = cfg.base_lr * self.global_batch / 256
        trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        opt = torch.optim.SGD([p for _, p in trainable], lr=self.peak_lr,
                              momentum=0.9, weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=trainable)
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)
        self.epoch = 0
        self.total_steps = cfg.epochs * len(loader)

    def lr_at(self, step):
        warm = self.cfg.warmup_epochs * len(self.loader)
        if step < warm:
            return self.peak_lr * step / warm
        return self.peak_lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / (self.total_steps - warm)))

    def resume(self, path):
        state = None
        if self.is_main and path and os.path.exists(path):
            state = torch.load(path, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.epoch = state["epoch"]
        self.epoch = hvd.broadcast_object(self.epoch, root_rank=0, name="resume_epoch")

    def sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self):
        self.model.train()
        running, n = 0.0, 0
        for i, ((v1, v2), _) in enumerate(self.loader):
            step = self.epoch * len(self.loader) + i
            for g in self.optimizer.param_groups:
                g["lr"] = self.lr_at(step)
            v1, v2 = v1.to(self.device), v2.to(self.device)
            with torch.autocast(device_type=self.device.type, enabled=self.cfg.amp):
                loss = self.model(v1, v2)
            self.optimizer.zero_grad()
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.model.update_target(step, self.total_steps, self.cfg.momentum_base)
            running += loss.item()
            n += 1
        avg = hvd.allreduce(torch.tensor(running / max(n, 1)), name="epoch_loss").item()
        if self.is_main:
            log.info("epoch %d  loss %.4f  lr %.4f", self.epoch, avg, self.optimizer.param_groups[0]["lr"])
        self.epoch += 1
        return avg

    def save(self):
        if not self.is_main:
            return
        os.makedirs(self.cfg.ckpt_dir, exist_ok=True)
        state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                 "epoch": self.epoch}
        torch.save(state, os.path.join(self.cfg.ckpt_dir, "byol_last.pt"))
