import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from .schedule import apply_lr, lr_at


class Trainer:
    def __init__(self, model, optimizer, device, base_lr, ckpt_path, warmup_epochs=5, log_every=1):
        self.model, self.optimizer, self.device = model, optimizer, device
        self.base_lr, self.ckpt_path = base_lr, ckpt_path
        self.warmup_epochs, self.log_every = warmup_epochs, log_every
        self.start_epoch = 0
        self.is_main = hvd.local_rank() == 0

    def broadcast(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0, name="start_epoch")

    def load(self):
        if hvd.rank() == 0 and os.path.exists(self.ckpt_path):
            state = torch.load(self.ckpt_path, map_location="cpu")
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.start_epoch = state["epoch"] + 1

    def save(self, epoch):
        if self.is_main:
            os.makedirs(os.path.dirname(self.ckpt_path) or ".", exist_ok=True)
            torch.save({"epoch": epoch, "model": self.model.state_dict(),
                        "optimizer": self.optimizer.state_dict()}, self.ckpt_path)

    def train_epoch(self, loader, sampler, epoch):
        sampler.set_epoch(epoch)
        apply_lr(self.optimizer, lr_at(epoch, self.base_lr, hvd.size(), self.warmup_epochs))
        self.model.train()
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.l1_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        abs_err = torch.zeros(2, dtype=torch.float64)
        for x, y in loader:
            pred = self.model(x.to(self.device)).cpu()
            abs_err += torch.tensor([(pred - y).abs().sum().item(), y.numel()], dtype=torch.float64)
        abs_err = hvd.allreduce(abs_err, op=hvd.Sum, name="val_mae")
        return (abs_err[0] / abs_err[1]).item()

    def fit(self, train_loader, train_sampler, val_loader, epochs):
        for epoch in range(self.start_epoch, epochs):
            self.train_epoch(train_loader, train_sampler, epoch)
            mae = self.evaluate(val_loader)
            if hvd.rank() == 0 and epoch % self.log_every == 0:
                print(f"epoch {epoch}: lr {self.optimizer.param_groups[0]['lr']:.2e} val MAE {mae:.4f} eV/atom",
                      flush=True)
            self.save(epoch)
