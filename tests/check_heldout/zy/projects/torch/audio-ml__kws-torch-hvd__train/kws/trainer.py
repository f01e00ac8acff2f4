import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .metrics import AverageMeter, accuracy
from .optim import build_optimizer, wrap_optimizer, cosine_with_warmup

log = logging.getLogger(__name__)


class Trainer(object):
    def __init__(self, model, train_loader, val_loader, train_sampler, lr, epochs,
                 out_dir="checkpoints", fp16_allreduce=False, device="cpu"):
        self.model = model.to(device)
        self.device = device
        self.train_loader, self.val_loader, self.train_sampler = train_loader, val_loader, train_sampler
        self.epochs, self.out_dir = epochs, out_dir
        optimizer = build_optimizer(model, lr)
        self.optimizer = wrap_optimizer(optimizer, model, fp16_allreduce)
        steps = epochs * len(train_loader)
        self.scheduler = cosine_with_warmup(self.optimizer, warmup_steps=min(1000, steps // 10), total_steps=steps)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.best_acc = 0.0

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        meter = AverageMeter("loss")
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y, label_smoothing=0.1)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            meter.update(loss.item(), x.size(0))
        return meter.avg

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        acc = AverageMeter("acc")
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            acc.update(accuracy(self.model(x), y), x.size(0))
        return acc.avg

    def save(self, epoch, is_best):
        if hvd.rank() != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        state = {"epoch": epoch, "model": self.model.state_dict(), "best_acc": self.best_acc}
        torch.save(state, os.path.join(self.out_dir, "last.pt"))
        if is_best:
            torch.save(state, os.path.join(self.out_dir, "best.pt"))

    def fit(self):
        for epoch in range(self.epochs):
            train_loss = self.train_epoch(epoch)
            val_acc = self.evaluate()
            is_best = val_acc > self.best_acc
            self.best_acc = max(val_acc, self.best_acc)
            if hvd.rank() == 0:
                log.info("epoch %d loss %.4f val_acc %.4f (best %.4f)", epoch, train_loss, val_acc, self.best_acc)
            self.save(epoch, is_best)
        return self.best_acc
