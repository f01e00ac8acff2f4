import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .distributed import global_mean

logger = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer, train_sampler, val_sampler, cfg, device):
        self.model, self.optimizer = model, optimizer
        self.train_sampler, self.val_sampler = train_sampler, val_sampler
        self.cfg, self.device = cfg, device
        self.best_acc = 0.0

    def _episode(self, sampler):
        xs, ys, xq, yq = (t.to(self.device) for t in sampler.sample())
        logp = self.model(xs, ys, xq, self.cfg["n_way"])
        return F.nll_loss(logp, yq), (logp.argmax(1) == yq).float().mean().item()

    def train_epoch(self, epoch):
        self.model.train()
        for it in range(self.cfg["episodes_per_rank"]):
            loss, acc = self._episode(self.train_sampler)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if it % self.cfg["log_every"] == 0 and hvd.rank() == 0:
                logger.info("epoch %d it %d loss %.4f acc %.3f", epoch, it, loss.item(), acc)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        accs = [self._episode(self.val_sampler)[1] for _ in range(self.cfg["val_episodes_per_rank"])]
        return global_mean(sum(accs) / len(accs), "val_acc")

    def save_checkpoint(self, epoch, acc):
        os.makedirs(self.cfg["out_dir"], exist_ok=True)
        state = {"epoch": epoch, "model": self.model.state_dict(),
                 "optimizer": self.optimizer.state_dict(), "val_acc": acc}
        torch.save(state, os.path.join(self.cfg["out_dir"], "last.pth"))
        if acc > self.best_acc:
            self.best_acc = acc
            torch.save(state, os.path.join(self.cfg["out_dir"], "best.pth"))

    def fit(self):
        for epoch in range(self.cfg["epochs"]):
            self.train_epoch(epoch)
            acc = self.validate()
            if hvd.rank() == 0:
                logger.info("epoch %d val acc %.4f", epoch, acc)
            self.save_checkpoint(epoch, acc)
