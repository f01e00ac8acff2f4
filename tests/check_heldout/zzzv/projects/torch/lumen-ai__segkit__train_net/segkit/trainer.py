import logging
import os

import torch
import torch.nn.functional as F

from .metrics import MeanIoU, PixelAccuracy

logger = logging.getLogger("segkit")


class SegTrainer:
    def __init__(self, cfg, model, optimizer, train_loader, val_loader, train_sampler=None):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.train_sampler = train_sampler
        self.miou = MeanIoU(cfg.num_classes)
        self.pacc = PixelAccuracy(cfg.num_classes)
        self.iter = 0

    def train_step(self, images, masks):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(images), masks)
        loss.backward()
        self.optimizer.step()
        self.iter += 1
        return loss.item()

    @torch.no_grad()
    def test_step(self, images, masks):
        logits = self.model(images)
        self.miou.update_state(logits, masks)
        self.pacc.update_state(logits, masks)

    def train_epoch(self, epoch):
        self.model.train()
        if self.train_sampler is not None:
            self.train_sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(self.train_loader):
            loss = self.train_step(x.to(self.cfg.device), y.to(self.cfg.device))
            if i % 10 == 0:
                logger.info("epoch %d iter %d loss %.4f", epoch, i, loss)

    def evaluate(self):
        self.model.eval()
        self.miou.reset_state()
        self.pacc.reset_state()
        for x, y in self.val_loader:
            self.test_step(x.to(self.cfg.device), y.to(self.cfg.device))
        return {"mIoU": self.miou.result(), "pixAcc": self.pacc.result()}

    def save(self, path, epoch, best):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save({"epoch": epoch, "best": best, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
