"""ViT-Tiny on CIFAR-10 with Horovod + gradient accumulation.

Effective batch = batch_size * accum_steps * world_size.

    horovodrun -np 4 python train_accum.py --data-dir ~/data/cifar10 --epochs 100
"""
import argparse
import dataclasses
import logging
import math
import os
import time
from dataclasses import dataclass

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

log = logging.getLogger("vit-tiny")


@dataclass
class TrainConfig:
    data_dir: str = "./data/cifar10"
    out_dir: str = "./runs/vit_tiny"
    epochs: int = 100
    batch_size: int = 128          # per process, per micro-step
    accum_steps: int = 4           # micro-steps per optimizer step
    base_lr: float = 5e-4          # for an effective batch of 512
    weight_decay: float = 0.05
    warmup_epochs: int = 5
    label_smoothing: float = 0.1
    amp: bool = True
    workers: int = 4
    resume: str = ""
    seed: int = 0

    @classmethod
    def from_args(cls):
        p = argparse.ArgumentParser()
        for f in dataclasses.fields(cls):
            flag = "--" + f.name.replace("_", "-")
            if f.type is bool:
                p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default)
            else:
                p.add_argument(flag, type=f.type, default=f.default)
        return cls(**vars(p.parse_args()))


def vit_tiny(num_classes=10):
    return torchvision.models.VisionTransformer(image_size=32, patch_size=4, num_layers=12, num_heads=3,
                                                hidden_dim=192, mlp_dim=768, num_classes=num_classes)


class Trainer:
    def __init__(self, cfg: TrainConfig):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
        train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)])
        test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
        train_set = torchvision.datasets.CIFAR10(cfg.data_dir, train=True, transform=train_tf)
        test_set = torchvision.datasets.CIFAR10(cfg.data_dir, train=False, transform=test_tf)
        self.train_sampler = torch.utils.data.distributed.DistributedSampler(
            train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=cfg.seed)
        test_sampler = torch.utils.data.distributed.DistributedSampler(
            test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.train_loader = torch.utils.data.DataLoader(train_set, batch_size=cfg.batch_size, sampler=self.train_sampler,
                                                        num_workers=cfg.workers, drop_last=True, pin_memory=True)
        self.test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, sampler=test_sampler,
                                                       num_workers=cfg.workers)

        self.model = vit_tiny().to(self.device)
        eff_batch = cfg.batch_size * cfg.accum_steps * hvd.size()
        self.lr = cfg.base_lr * eff_batch / 512
        opt = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters(),
                                                  compression=hvd.Compression.fp16)
        self.steps_per_epoch = len(self.train_loader) // cfg.accum_steps
        total, warm = cfg.epochs * self.steps_per_epoch, cfg.warmup_epochs * self.steps_per_epoch
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm))))
        self.criterion = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
        self.use_amp = cfg.amp and self.device.type == "cuda"
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.use_amp)
        self.start_epoch = 0

        if cfg.resume and hvd.rank() == 0:
            ckpt = torch.load(cfg.resume, map_location="cpu")
            self.model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.scheduler.load_state_dict(ckpt["scheduler"])
            self.start_epoch = ckpt["epoch"] + 1
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0, name="start_epoch")
        self.scheduler.last_epoch = self.start_epoch * self.steps_per_epoch - 1

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        self.optimizer.zero_grad()
        running = 0.0
        for i, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            with torch.autocast(device_type=self.device.type, dtype=torch.float16, enabled=self.use_amp):
                loss = self.criterion(self.model(x), y) / self.cfg.accum_steps
            self.scaler.scale(loss).backward()
            running += loss.item()
            if (i + 1) % self.cfg.accum_steps == 0:
                self.optimizer.synchronize()
                self.scaler.unscale_(self.optimizer)
                nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                with self.optimizer.skip_synchronize():
                    self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
                self.scheduler.step()
        return running / max(1, self.steps_per_epoch)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        stats = torch.zeros(3)
        for x, y in self.test_loader:
            out = self.model(x.to(self.device)).float().cpu()
            stats += torch.tensor([self.criterion(out, y).item() * y.numel(), (out.argmax(1) == y).sum().item(), y.numel()])
        stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
        return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()

    def save(self, epoch):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "epoch": epoch},
                   os.path.join(self.cfg.out_dir, "last.pt"))

    def fit(self):
        for epoch in range(self.start_epoch, self.cfg.epochs):
            t0 = time.time()
            train_loss = self.train_epoch(epoch)
            val_loss, val_acc = self.evaluate()
            if hvd.rank() == 0:
                log.info(f"epoch {epoch:3d} | train {train_loss:.4f} | val {val_loss:.4f} acc {val_acc:.4f} "
                         f"| lr {self.scheduler.get_last_lr()[0]:.2e} | {time.time() - t0:.0f}s")
                self.save(epoch)


def main():
    cfg = TrainConfig.from_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(cfg.seed)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format=f"[rank {hvd.rank()}] %(asctime)s %(message)s")
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
