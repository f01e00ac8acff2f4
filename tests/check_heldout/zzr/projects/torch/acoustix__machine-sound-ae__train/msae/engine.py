import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

log = logging.getLogger("msae")


def allreduce_mean(value, name):
    return hvd.allreduce(torch.tensor(value, dtype=torch.float32), name=name).item()


class CheckpointManager:
    def __init__(self, out_dir, keep_best=True):
        self.out_dir = out_dir
        self.keep_best = keep_best
        self.best = float("inf")
        os.makedirs(out_dir, exist_ok=True)

    def save(self, model, optimizer, epoch, val_loss):
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}
        torch.save(state, os.path.join(self.out_dir, "last.pth"))
        if self.keep_best and val_loss < self.best:
            self.best = val_loss
            torch.save(state, os.path.join(self.out_dir, "best.pth"))
            if hvd.rank() == 0:
                log.info("new best val loss %.5f at epoch %d", val_loss, epoch)


class Trainer:
    def __init__(self, model, optimizer, scheduler, device, cfg):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.device, self.cfg = device, cfg
        self.ckpt = CheckpointManager(cfg.out_dir)

    def _step(self, x):
        x = x.to(self.device)
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(x), x)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        losses = [F.mse_loss(self.model(x.to(self.device)), x.to(self.device)).item() for x, _ in loader]
        return allreduce_mean(sum(losses) / max(len(losses), 1), "val_loss")

    def fit(self, train_loader, train_sampler, val_loader):
        for epoch in range(self.cfg.epochs):
            self.model.train()
            train_sampler.set_epoch(epoch)
            for it, (x, _) in enumerate(train_loader):
                loss = self._step(x)
                if hvd.rank() == 0 and it % self.cfg.log_every == 0:
                    log.info("epoch %d it %d loss %.5f", epoch, it, loss)
            val = self.evaluate(val_loader)
            self.scheduler.step(val)
            self.ckpt.save(self.model, self.optimizer, epoch, val)
