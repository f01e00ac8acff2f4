import os
import time

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .lr import scaled_lr, warmup_cosine
from .metrics import ConfusionMatrix


class Engine:
    def __init__(self, cfg, model, train_loader, test_loader, device):
        self.cfg, self.tcfg = cfg, cfg["train"]
        self.model = model
        self.train_loader, self.test_loader = train_loader, test_loader
        self.device = device
        opt = torch.optim.AdamW(model.parameters(), lr=scaled_lr(self.tcfg["base_lr"]),
                                weight_decay=self.tcfg["weight_decay"])
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                                  op=hvd.Average)
        steps = len(train_loader)
        self.scheduler = warmup_cosine(self.optimizer, self.tcfg["warmup_epochs"] * steps,
                                       self.tcfg["epochs"] * steps)
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.tcfg["amp"])
        self.start_epoch = 0
        self.best_miou = 0.0

    # ------------------------------------------------------------------ state
    def resume(self, path):
        if hvd.rank() == 0 and path and os.path.isfile(path):
            ck = torch.load(path, map_location="cpu")
            self.model.load_state_dict(ck["model"])
            self.optimizer.load_state_dict(ck["optimizer"])
            self.scheduler.load_state_dict(ck["scheduler"])
            self.start_epoch, self.best_miou = ck["epoch"] + 1, ck["best_miou"]
            print(f"resumed {path} (epoch {ck['epoch']})")
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.start_epoch, self.best_miou, sched = hvd.broadcast_object(
            (self.start_epoch, self.best_miou, self.scheduler.state_dict()), root_rank=0, name="resume_meta")
        self.scheduler.load_state_dict(sched)

    def save(self, epoch, name):
        if hvd.rank() != 0:
            return
        os.makedirs(self.tcfg["out_dir"], exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(), "best_miou": self.best_miou},
                   os.path.join(self.tcfg["out_dir"], name))

    # ------------------------------------------------------------------ loops
    def train_epoch(self, epoch):
        self.model.train()
        self.train_loader.sampler.set_epoch(epoch)
        t0 = time.time()
        for it, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.tcfg["amp"]):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.tcfg["clip_norm"])
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            if hvd.rank() == 0 and it % 50 == 0:
                print(f"ep {epoch} it {it}/{len(self.train_loader)} loss {loss.item():.3f} "
                      f"lr {self.scheduler.get_last_lr()[0]:.2e} ({time.time() - t0:.0f}s)", flush=True)

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        cm = ConfusionMatrix(self.cfg["model"]["num_classes"], self.device)
        for x, y in self.test_loader:
            x, y = x.to(self.device), y.to(self.device)
            with torch.autocast("cuda", enabled=self.tcfg["amp"]):
                pred = self.model(x).argmax(1)
            cm.update(pred, y)
        return cm.reduce().scores()

    def fit(self):
        for epoch in range(self.start_epoch, self.tcfg["epochs"]):
            self.train_epoch(epoch)
            s = self.evaluate()
            if s["mIoU"] > self.best_miou:
                self.best_miou = s["mIoU"]
                self.save(epoch, "best.pth")
            if (epoch + 1) % self.tcfg["save_every"] == 0:
                self.save(epoch, "last.pth")
            if hvd.rank() == 0:
                print(f"epoch {epoch}: mIoU {s['mIoU']:.4f} OA {s['OA']:.4f} best {self.best_miou:.4f}")
        return self.best_miou
