import os

import torch
import torch.nn as nn
import horovod.torch as hvd

from utils.dist import all_sum


class Trainer:
    def __init__(self, model, optimizer, scheduler, device, class_weights, out_dir,
                 amp=True, clip=1.0, logger=None):
        self.model, self.scheduler, self.device = model, scheduler, device
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters())
        self.criterion = nn.CrossEntropyLoss(weight=class_weights.to(device))
        self.use_amp = amp and device.type == "cuda"
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.use_amp)
        self.clip, self.out_dir, self.log = clip, out_dir, logger
        self.is_main = hvd.rank() == 0
        self.start_epoch = 0

    def sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0, name="start_epoch")

    def train_epoch(self, loader, epoch):
        self.model.train()
        loader.sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.use_amp):
                loss = self.criterion(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            if self.is_main and self.log and step % 50 == 0:
                self.log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        self.scheduler.step()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = seen = 0
        for x, y in loader:
            pred = self.model(x.to(self.device)).argmax(1).cpu()
            correct += (pred == y).sum().item()
            seen += y.numel()
        correct, seen = all_sum([correct, seen], name="val_acc")
        return correct / max(seen, 1.0)

    def save(self, epoch, tag="last"):
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict()},
                   os.path.join(self.out_dir, f"{tag}.pt"))

    def resume(self, path):
        ckpt = torch.load(path, map_location="cpu")
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.scheduler.load_state_dict(ckpt["scheduler"])
        self.start_epoch = ckpt["epoch"] + 1
