import torch
import torch.nn.functional as F

from .metrics import MAEMeter, AverageMeter


class Trainer:
    def __init__(self, model, optimizer, scheduler, device, ystd=1.0):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.device = device
        self.ystd = ystd

    def _to(self, b):
        return {k: (v.to(self.device) if torch.is_tensor(v) else v) for k, v in b.items()}

    def train_one_epoch(self, loader):
        self.model.train()
        meter = AverageMeter()
        for b in loader:
            b = self._to(b)
            self.optimizer.zero_grad()
            loss = F.mse_loss(self.model(b), b["y"])
            loss.backward()
            self.optimizer.step()
            meter.update(loss.item(), b["num_graphs"])
        return meter.avg

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        mae = MAEMeter()
        for b in loader:
            b = self._to(b)
            mae.update(self.model(b) * self.ystd, b["y"] * self.ystd)
        return mae.value()
