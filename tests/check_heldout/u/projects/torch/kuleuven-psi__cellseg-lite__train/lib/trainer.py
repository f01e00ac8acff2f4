import os
import time

import torch
import torch.nn.functional as F

import horovod.torch as hvd

from .data import make_loader
from .dist_utils import is_main, mean_over_workers, world_size
from .models import create_model


def mean_iou(logits, target, n_cls):
    pred = logits.argmax(1)
    ious = []
    for c in range(1, n_cls):
        inter = ((pred == c) & (target == c)).sum().item()
        union = ((pred == c) | (target == c)).sum().item()
        if union:
            ious.append(inter / union)
    return sum(ious) / max(len(ious), 1)


class Trainer:
    def __init__(self, cfg, device):
        self.cfg, self.device = cfg, device
        self.train_loader = make_loader(cfg, "train", hvd.size(), hvd.rank())
        self.val_loader = make_loader(cfg, "val", hvd.size(), hvd.rank())

        self.model = create_model(cfg.arch, cfg.in_ch, cfg.out_ch).to(device)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        if cfg.pretrained:
            self.model.load_pretrained(cfg.pretrained, cfg.out_ch)

        opt = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr * world_size(), weight_decay=cfg.weight_decay)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and device.type == "cuda")
        self.best = -1.0

    def train_one_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        for it, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.scaler.is_enabled()):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            if self.cfg.clip_grad:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_grad)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            if is_main() and it % self.cfg.log_every == 0:
                print(f"epoch {epoch} iter {it} loss {loss.item():.4f}", flush=True)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        losses, ious = [], []
        for x, y in self.val_loader:
            out = self.model(x.to(self.device))
            losses.append(F.cross_entropy(out, y.to(self.device)).item())
            ious.append(mean_iou(out, y.to(self.device), self.cfg.out_ch))
        # DistributedSampler pads the val set, every worker has the same number of batches
        return (mean_over_workers(sum(losses) / len(losses), "val_loss"),
                mean_over_workers(sum(ious) / len(ious), "val_miou"))

    def save(self, epoch, tag="last"):
        if not is_main():
            return
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(), "cfg": self.cfg.to_dict()},
                   os.path.join(self.cfg.out_dir, f"{tag}.pth"))

    def fit(self):
        for epoch in range(self.cfg.epochs):
            t0 = time.time()
            self.train_one_epoch(epoch)
            val_loss, miou = self.validate()
            if is_main():
                print(f"[epoch {epoch}] {time.time() - t0:.0f}s val_loss {val_loss:.4f} mIoU {miou:.4f}")
            self.save(epoch)
            if miou > self.best:
                self.best = miou
                self.save(epoch, "best")
