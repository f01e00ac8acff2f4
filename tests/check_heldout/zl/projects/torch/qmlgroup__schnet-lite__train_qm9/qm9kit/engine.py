import logging
import os

import torch
import horovod.torch as hvd

log = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer, scheduler, device, out_dir):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.device, self.out_dir = device, out_dir
        self.loss_fn = torch.nn.L1Loss()
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader):
        self.model.train()
        total, n = 0.0, 0
        for z, pos, y in loader:
            z, pos, y = z.to(self.device), pos.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.loss_fn(self.model(z, pos), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item() * len(y)
            n += len(y)
        return total / max(n, 1)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        abs_err, n = 0.0, 0
        for z, pos, y in loader:
            z, pos, y = z.to(self.device), pos.to(self.device), y.to(self.device)
            abs_err += (self.model(z, pos) - y).abs().sum().item()
            n += len(y)
        return abs_err / max(n, 1)

    def save(self, epoch, best=False):
        if hvd.rank() != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        state = {"epoch": epoch, "model": self.model.state_dict(),
                 "optimizer": self.optimizer.state_dict()}
        torch.save(state, os.path.join(self.out_dir, "best.pt" if best else "last.pt"))
