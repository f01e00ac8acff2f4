import os
import time

import torch

import horovod.torch as hvd

from .losses import depth_loss, seg_loss


class Trainer:
    def __init__(self, model, weighting, optimizer, scheduler, scaler, device, out_dir, log_every=20):
        self.model = model
        self.weighting = weighting
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.scaler = scaler
        self.device = device
        self.out_dir = out_dir
        self.log_every = log_every
        self.is_main = hvd.rank() == 0

    def train_epoch(self, loader, epoch):
        self.model.train()
        t0 = time.time()
        for it, (img, seg, depth) in enumerate(loader):
            img, seg, depth = img.to(self.device), seg.to(self.device), depth.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.scaler.is_enabled()):
                seg_logits, depth_pred = self.model(img)
                losses = [seg_loss(seg_logits, seg), depth_loss(depth_pred.float(), depth)]
                loss = self.weighting(losses)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            if self.is_main and it % self.log_every == 0:
                s = self.weighting.log_vars.detach().cpu().tolist()
                print(f"[ep {epoch} it {it}] loss={loss.item():.4f} seg={losses[0].item():.4f} "
                      f"depth={losses[1].item():.4f} log_vars={s} ({time.time() - t0:.1f}s)", flush=True)
        self.scheduler.step()

    def save_checkpoint(self, epoch, metrics):
        os.makedirs(self.out_dir, exist_ok=True)
        path = os.path.join(self.out_dir, f"epoch_{epoch:03d}.pth")
        torch.save({"epoch": epoch, "metrics": metrics,
                    "model": self.model.state_dict(),
                    "weighting": self.weighting.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
        return path
