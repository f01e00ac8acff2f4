import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .utils import AverageMeter


class Trainer:
    def __init__(self, model, optimizer, device, normalizer=(0.0, 1.0)):
        self.model = model.to(device)
        self.device = device
        self.mean, self.std = normalizer
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _to(self, batch):
        return [t.to(self.device) for t in batch]

    def train_epoch(self, loader):
        self.model.train()
        meter = AverageMeter()
        for batch in loader:
            x, ei, d, y, b = self._to(batch)
            self.optimizer.zero_grad()
            loss = F.mse_loss(self.model(x, ei, d, b), (y - self.mean) / self.std)
            loss.backward()
            self.optimizer.step()
            meter.update(loss.item(), y.shape[0])
        return meter.avg

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        mae = AverageMeter()
        for batch in loader:
            x, ei, d, y, b = self._to(batch)
            pred = self.model(x, ei, d, b) * self.std + self.mean
            mae.update(torch.mean(torch.abs(pred - y)).item(), y.shape[0])
        return mae.avg
