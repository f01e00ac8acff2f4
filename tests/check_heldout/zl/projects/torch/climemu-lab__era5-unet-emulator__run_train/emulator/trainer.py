import os

import torch
import horovod.torch as hvd

from utils.dist import global_sum, is_main


class EmulatorTrainer:
    def __init__(self, model, optimizer, scheduler, lat_w, device, amp=True):
        self.model, self.opt, self.sched = model, optimizer, scheduler
        self.lat_w = lat_w.to(device)
        self.device = device
        self.amp = amp and device.type == "cuda"
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.amp)

    def loss(self, pred, y):
        return ((pred - y) ** 2 * self.lat_w).mean()

    def train_epoch(self, loader):
        self.model.train()
        s, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.opt.zero_grad()
            with torch.autocast(self.device.type, enabled=self.amp):
                loss = self.loss(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.opt.synchronize()
            self.scaler.unscale_(self.opt)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            with self.opt.skip_synchronize():
                self.scaler.step(self.opt)
            self.scaler.update()
            self.sched.step()
            s += loss.item() * len(x)
            n += len(x)
        tot, cnt = global_sum(s, n, name="train_loss")
        return tot / cnt

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        se, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            se += self.loss(self.model(x), y).item() * len(x)
            n += len(x)
        tot, cnt = global_sum(se, n, name="val_wmse")
        return (tot / cnt) ** 0.5

    def state(self, epoch):
        return {"epoch": epoch, "model": self.model.state_dict(), "opt": self.opt.state_dict(),
                "sched": self.sched.state_dict(), "scaler": self.scaler.state_dict()}

    def save(self, path, epoch):
        if is_main():
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            torch.save(self.state(epoch), path)

    def resume(self, path):
        start = 0
        if is_main() and os.path.isfile(path):
            ck = torch.load(path, map_location="cpu")
            self.model.load_state_dict(ck["model"])
            self.opt.load_state_dict(ck["opt"])
            self.sched.load_state_dict(ck["sched"])
            start = ck["epoch"] + 1
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)
        sched_state = hvd.broadcast_object(self.sched.state_dict(), root_rank=0, name="sched")
        self.sched.load_state_dict(sched_state)
        return hvd.broadcast_object(start, root_rank=0, name="start_epoch")
