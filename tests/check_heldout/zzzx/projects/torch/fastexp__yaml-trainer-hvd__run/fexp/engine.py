import os
import time

import torch
import torch.nn.functional as F

from fexp import dist


class Engine:
    def __init__(self, cfg, model, optimizer, scheduler, device, logger):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.logger = logger
        self.start_epoch = 0
        self.best = 0.0
        self.out_dir = cfg["train"]["out_dir"]

    def load(self, path):
        ckpt = torch.load(path, map_location="cpu")
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.scheduler.load_state_dict(ckpt["scheduler"])
        self.start_epoch = ckpt["epoch"] + 1
        self.best = ckpt.get("best", 0.0)

    def save(self, epoch, tag="last"):
        if not dist.is_master():
            return
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "epoch": epoch, "best": self.best},
                   os.path.join(self.out_dir, "{}.pt".format(tag)))

    def train_one_epoch(self, loader, epoch):
        self.model.train()
        loader.sampler.set_epoch(epoch)
        tot, n = 0.0, 0
        for it, (x, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            loss = F.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            tot += loss.item()
            n += 1
            if it % self.cfg["train"]["log_every"] == 0:
                self.logger.info("ep %d it %d loss %.4f lr %.2e", epoch, it, loss.item(),
                                 self.optimizer.param_groups[0]["lr"])
        return dist.mean_over_workers(tot / max(n, 1), "train_loss")

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct, seen = 0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            correct += (self.model(x).argmax(-1) == y).sum().item()
            seen += y.numel()
        # DistributedSampler pads so every worker sees the same count
        return dist.mean_over_workers(correct / max(seen, 1), "val_acc")

    def run(self, train_loader, val_loader):
        for epoch in range(self.start_epoch, self.cfg["train"]["epochs"]):
            t0 = time.time()
            loss = self.train_one_epoch(train_loader, epoch)
            acc = self.evaluate(val_loader)
            self.logger.info("epoch %d loss %.4f val_acc %.4f (%.0fs)", epoch, loss, acc, time.time() - t0)
            self.save(epoch)
            if acc > self.best:
                self.best = acc
                self.save(epoch, tag="best")
