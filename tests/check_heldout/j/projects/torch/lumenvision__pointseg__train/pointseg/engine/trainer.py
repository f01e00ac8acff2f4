import os
import time

import torch
from torch import nn

from ..data import build_loaders
from ..model import PointNetSeg
from ..solver import build_scheduler, get_optimizer
from ..utils.checkpoint import load_checkpoint, save_checkpoint
from ..utils.dist import broadcast_scalar, is_main_process, sync_training_state
from ..utils.meters import AverageMeter, ConfusionMatrix


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        mcfg = cfg["model"]
        self.model = PointNetSeg(mcfg["in_channels"], mcfg["num_classes"]).to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        self.train_loader, self.heldout_loader, self.train_sampler = build_loaders(cfg)
        self.optimizer = get_optimizer(cfg, self.model, distributed=True)
        self.scheduler = build_scheduler(cfg, self.optimizer, len(self.train_loader))
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg["amp"])
        self.start_epoch, self.best_miou = 0, 0.0
        if cfg["resume"]:
            # every worker reads the file, so the scheduler state is the same everywhere
            self.start_epoch, self.best_miou = load_checkpoint(cfg["resume"], self.model,
                                                               self.optimizer, self.scheduler)
        sync_training_state(self.model, self.optimizer)
        self.start_epoch = broadcast_scalar(self.start_epoch, "start_epoch")

    def train_step(self, points, labels):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=self.device.type, enabled=self.cfg["amp"]):
            loss = self.criterion(self.model(points), labels)
        self.scaler.scale(loss).backward()
        # wait for the gradient allreduce, then unscale and clip the averaged gradients
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["train"]["clip_norm"])
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        self.scheduler.step()
        return loss.detach()

    def train_one_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        meter = AverageMeter("train_loss")
        tic = time.time()
        for it, (points, labels) in enumerate(self.train_loader):
            points, labels = points.to(self.device), labels.to(self.device)
            loss = self.train_step(points, labels)
            meter.update(loss.item(), points.size(0))
            if it % self.cfg["train"]["log_every"] == 0 and is_main_process():
                lr = self.optimizer.param_groups[0]["lr"]
                print(f"[{epoch}][{it}/{len(self.train_loader)}] loss {loss.item():.4f} lr {lr:.5f}")
        meter.sync()
        return meter.avg, time.time() - tic

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        loss_meter = AverageMeter("heldout_loss")
        confusion = ConfusionMatrix(self.cfg["model"]["num_classes"])
        for points, labels in self.heldout_loader:
            points, labels = points.to(self.device), labels.to(self.device)
            logits = self.model(points)
            loss_meter.update(self.criterion(logits, labels).item(), points.size(0))
            confusion.update(logits.argmax(1), labels)
        loss_meter.sync()
        confusion.sync()
        return {"loss": loss_meter.avg, "miou": confusion.miou(), "oa": confusion.overall_acc()}

    def fit(self):
        epochs = self.cfg["train"]["epochs"]
        for epoch in range(self.start_epoch, epochs):
            train_loss, secs = self.train_one_epoch(epoch)
            metrics = self.validate()
            is_best = metrics["miou"] > self.best_miou
            self.best_miou = max(self.best_miou, metrics["miou"])
            if is_main_process():
                print(f"epoch {epoch}: train {train_loss:.4f} ({secs:.0f}s) heldout loss {metrics['loss']:.4f} "
                      f"mIoU {metrics['miou']:.4f} OA {metrics['oa']:.4f}")
            state = {"epoch": epoch, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                     "scheduler": self.scheduler.state_dict(), "best_miou": self.best_miou}
            save_checkpoint(state, self.cfg["work_dir"], is_best=is_best)
        if is_main_process():
            print(f"done, best heldout mIoU {self.best_miou:.4f}; weights in {os.path.abspath(self.cfg['work_dir'])}")
