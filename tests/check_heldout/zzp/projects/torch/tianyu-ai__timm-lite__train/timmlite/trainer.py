import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from .data import create_loaders
from .models import create_model, reset_classifier
from .utils import AverageMeter, ScalarWriter, setup_logger


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.rank = hvd.rank()
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        torch.manual_seed(cfg.seed + self.rank)
        self.log = setup_logger("timmlite", self.rank)
        self.out_dir = os.path.join(cfg.output, f"{cfg.model}-{time.strftime('%Y%m%d-%H%M%S')}")
        self.writer = ScalarWriter(self.out_dir) if self.rank == 0 else None

        self.train_loader, self.val_loader, self.train_sampler = create_loaders(cfg)
        model = create_model(cfg.model, pretrained=cfg.pretrained)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        self.model = reset_classifier(model, cfg.num_classes).to(self.device)

        opt = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            self.optimizer, T_0=cfg.restart_epochs * len(self.train_loader), eta_min=1e-6)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
        self.step = 0

    def train_one_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        meter = AverageMeter()
        for images, targets in self.train_loader:
            images, targets = images.to(self.device), targets.to(self.device)
            loss = self.criterion(self.model(images), targets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            meter.update(loss.item(), images.size(0))
            self.step += 1
            if self.writer and self.step % 100 == 0:
                self.writer.add_scalar("train/loss", loss.item(), self.step)
                self.writer.add_scalar("train/lr", self.optimizer.param_groups[0]["lr"], self.step)
        return meter.avg

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        stats = torch.zeros(2, dtype=torch.float64)
        for images, targets in self.val_loader:
            images, targets = images.to(self.device), targets.to(self.device)
            stats[0] += (self.model(images).argmax(1) == targets).sum().item()
            stats[1] += targets.numel()
        stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
        return (stats[0] / stats[1]).item()

    def fit(self):
        best = 0.0
        for epoch in range(self.cfg.epochs):
            loss = self.train_one_epoch(epoch)
            acc = self.validate()
            self.log.info("epoch %d loss %.4f top1 %.4f", epoch, loss, acc)
            if self.rank == 0:
                self.writer.add_scalar("val/top1", acc, epoch)
                if acc > best:
                    best = acc
                    torch.save({"epoch": epoch, "model": self.model.state_dict(), "top1": acc},
                               os.path.join(self.out_dir, "model_best.pth"))
        return best
