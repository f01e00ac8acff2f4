import logging
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from clickformer import dist_utils
from clickformer.metrics import Accuracy, Mean

logger = logging.getLogger(__name__)


def save_checkpoint(path, model, optimizer, epoch, metrics=None):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "metrics": metrics}, path)


def load_checkpoint(path, model, optimizer=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None and "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
    return state


class Trainer(object):
    def __init__(self, model, cfg, train_sampler=None):
        self.model = model
        self.cfg = cfg
        self.train_sampler = train_sampler
        self.start_epoch = 0
        self.step = 0

        lr = cfg.lr * hvd.size() if cfg.scale_lr else cfg.lr
        self.base_lr = lr
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
        compression = hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                                  compression=compression)

    def maybe_resume(self):
        if self.cfg.resume and dist_utils.is_main():
            state = load_checkpoint(self.cfg.resume, self.model, self.optimizer)
            self.start_epoch = state["epoch"] + 1
        self.start_epoch = hvd.broadcast_object(self.start_epoch, root_rank=0)

    def sync_initial_state(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def _warmup(self):
        if self.step < self.cfg.warmup_steps:
            scale = float(self.step + 1) / self.cfg.warmup_steps
            for g in self.optimizer.param_groups:
                g["lr"] = self.base_lr * scale

    def train_one_epoch(self, loader, epoch):
        self.model.train()
        if self.train_sampler is not None:
            self.train_sampler.set_epoch(epoch)
        loss_meter = Mean("train_loss")
        dev = dist_utils.device()
        for i, (x, y) in enumerate(loader):
            x, y = x.to(dev), y.to(dev)
            self._warmup()
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.step += 1
            loss_meter.update(loss.item(), x.size(0))
        train_loss = loss_meter.compute()
        if dist_utils.is_main():
            logger.info("epoch %d train loss %.4f", epoch, train_loss)
        return train_loss

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        acc, loss = Accuracy(), Mean("val_loss")
        dev = dist_utils.device()
        for x, y in loader:
            x, y = x.to(dev), y.to(dev)
            out = self.model(x)
            loss.update(F.cross_entropy(out, y).item(), x.size(0))
            acc.update(out, y)
        return {"val_loss": loss.compute(), "val_acc": acc.compute()}

    def save(self, epoch, metrics):
        if not dist_utils.is_main():
            return
        os.makedirs(self.cfg.output_dir, exist_ok=True)
        save_checkpoint(os.path.join(self.cfg.output_dir, "epoch_%03d.pt" % epoch),
                        self.model, self.optimizer, epoch, metrics)
