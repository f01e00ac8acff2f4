import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from cookie.checkpoint import save_checkpoint


class Meter:
    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.)
        self.n = torch.tensor(0.)

    def update(self, val, n):
        self.sum += float(val) * n
        self.n += n

    @property
    def avg(self):
        s = hvd.allreduce(self.sum, op=hvd.Sum, name=self.name + '_sum')
        n = hvd.allreduce(self.n, op=hvd.Sum, name=self.name + '_n')
        return (s / n).item()


class Trainer:
    def __init__(self, cfg, model, optimizer, train_loader, val_loader, train_sampler):
        self.cfg = cfg
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.train_sampler = train_sampler
        self.device = next(model.parameters()).device
        self.best_acc = 0.0

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        loss_m = Meter('train_loss')
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            loss_m.update(loss.item(), x.size(0))
        return loss_m.avg

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        acc_m = Meter('val_acc')
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            acc = (self.model(x).argmax(1) == y).float().mean().item()
            acc_m.update(acc, x.size(0))
        return acc_m.avg

    def fit(self):
        for epoch in range(self.cfg['epochs']):
            t0 = time.time()
            train_loss = self.train_epoch(epoch)
            val_acc = self.validate()
            self.best_acc = max(self.best_acc, val_acc)
            if hvd.rank() == 0:
                print('epoch {:3d} loss {:.4f} val_acc {:.4f} ({:.1f}s)'.format(
                    epoch, train_loss, val_acc, time.time() - t0), flush=True)
            if (epoch + 1) % self.cfg['save_every'] == 0:
                save_checkpoint(self.cfg['out_dir'], epoch, self.model, self.optimizer, self.best_acc)
