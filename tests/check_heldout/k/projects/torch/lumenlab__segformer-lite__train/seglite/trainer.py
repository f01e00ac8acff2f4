import time

import torch
import torch.nn.functional as F

from .checkpoint import load_checkpoint, save_checkpoint
from .data import SegDataModule
from .dist import hvd, log, setup_distributed
from .metrics import ConfusionMeter, RunningLoss
from .model import SegFormerLite
from .optim import build_optimizer, poly_lr


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = setup_distributed()
        self.data = SegDataModule(cfg.data)
        self.train_loader = self.data.loader("train")
        self.holdout_loader = self.data.loader("validation")

        self.model = SegFormerLite(cfg.data.num_classes, tuple(cfg.model.widths),
                                   cfg.model.decoder_dim).to(self.device)
        # Linear scaling against the batch the recipe was tuned on.
        global_batch = cfg.data.batch_size * hvd.size()
        self.peak_lr = cfg.optim.base_lr * global_batch / cfg.optim.ref_batch
        self.optimizer = build_optimizer(self.model, self.peak_lr, cfg.optim.weight_decay)

        self.start_epoch = 0
        if cfg.train.resume and hvd.rank() == 0:
            state = load_checkpoint(cfg.train.resume)
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.start_epoch = state["epoch"] + 1
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0, name="start_epoch")
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

        self.max_it = cfg.train.epochs * len(self.train_loader)

    def fit(self):
        best = 0.0
        for epoch in range(self.start_epoch, self.cfg.train.epochs):
            self.data.set_epoch(epoch)
            loss = self.train_one_epoch(epoch)
            log(f"epoch {epoch}: train loss {loss:.4f}")
            if (epoch + 1) % self.cfg.train.eval_every == 0 or epoch + 1 == self.cfg.train.epochs:
                miou, acc = self.validate()
                log(f"epoch {epoch}: mIoU {miou:.4f} pixel acc {acc:.4f}")
                if miou > best:
                    best = miou
                    save_checkpoint({"model": self.model.state_dict(), "epoch": epoch, "miou": miou},
                                    self.cfg.train.out_dir, "best.pth")
            save_checkpoint({"model": self.model.state_dict(),
                             "optimizer": self.optimizer.state_dict(),
                             "epoch": epoch}, self.cfg.train.out_dir)

    def train_one_epoch(self, epoch):
        self.model.train()
        meter = RunningLoss()
        tic = time.time()
        for i, (x, y) in enumerate(self.train_loader):
            it = epoch * len(self.train_loader) + i
            poly_lr(self.optimizer, self.peak_lr, it, self.max_it, self.cfg.optim.power)
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y, ignore_index=-1)
            loss.backward()
            self.optimizer.step()
            meter.update(loss.item(), x.size(0))
            if i % self.cfg.train.log_every == 0:
                log(f"  it {i}/{len(self.train_loader)} loss {loss.item():.4f} "
                    f"({time.time() - tic:.1f}s)")
        return meter.global_mean()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        conf = ConfusionMeter(self.cfg.data.num_classes, self.device)
        for x, y in self.holdout_loader:
            x, y = x.to(self.device), y.to(self.device)
            conf.update(self.model(x), y)
        conf.sync()
        return conf.miou(), conf.pixel_acc()
