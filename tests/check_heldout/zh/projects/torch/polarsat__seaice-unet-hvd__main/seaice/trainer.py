import copy
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .dist_utils import global_mean, global_sum


class ModelEMA:
    def __init__(self, model, decay=0.999):
        self.ema = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for e, m in zip(self.ema.state_dict().values(), model.state_dict().values()):
            if e.dtype.is_floating_point:
                e.mul_(self.decay).add_(m.detach(), alpha=1 - self.decay)


class SegTrainer:
    def __init__(self, model, optimizer, device, ckpt_dir, amp=True):
        self.model, self.device, self.ckpt_dir = model, device, ckpt_dir
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        self.ema = ModelEMA(model)
        self.amp = amp and device.type == 'cuda'
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.amp)

    def train_one_epoch(self, loader):
        self.model.train()
        running = 0.0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            with torch.autocast(self.device.type, enabled=self.amp):
                loss = F.cross_entropy(self.model(x), y, ignore_index=255)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.ema.update(self.model)
            running += loss.item()
        return global_mean(running / max(len(loader), 1), 'train_loss')

    @torch.no_grad()
    def validate(self, loader):
        model = self.ema.ema
        stats = torch.zeros(2, dtype=torch.float64)
        for x, y in loader:
            pred = model(x.to(self.device)).argmax(1).cpu()
            valid = y != 255
            stats += torch.tensor([(pred[valid] == y[valid]).sum().item(), valid.sum().item()],
                                  dtype=torch.float64)
        stats = global_sum(stats, 'val_stats')
        return (stats[0] / stats[1].clamp(min=1)).item()

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.ckpt_dir, exist_ok=True)
        torch.save({'epoch': epoch, 'model': self.model.state_dict(), 'ema': self.ema.ema.state_dict()},
                   os.path.join(self.ckpt_dir, f'seaice_unet_{epoch:03d}.pt'))
