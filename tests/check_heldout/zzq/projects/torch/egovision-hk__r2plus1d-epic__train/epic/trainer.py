import os
import logging

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .meters import AverageMeter

logger = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer, cfg, device):
        self.model = model
        self.cfg = cfg
        self.device = device
        self.epoch = 0
        self.optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        self.sync()

    def sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0, prefix="model")
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def lr_at(self, epoch):
        lr = self.cfg["lr"] * hvd.size()
        if epoch < self.cfg["warmup_epochs"]:
            return lr * (epoch + 1) / self.cfg["warmup_epochs"]
        return lr * (0.1 ** sum(epoch >= s for s in self.cfg["lr_steps"]))

    def train_epoch(self, loader):
        self.model.train()
        for g in self.optimizer.param_groups:
            g["lr"] = self.lr_at(self.epoch)
        loss_meter = AverageMeter("train_loss")
        for clips, verb, noun in loader:
            clips, verb, noun = clips.to(self.device), verb.to(self.device), noun.to(self.device)
            v_logits, n_logits = self.model(clips)
            loss = F.cross_entropy(v_logits, verb) + F.cross_entropy(n_logits, noun)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            loss_meter.update(loss.item(), clips.size(0))
        return loss_meter.all_reduce().avg

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        verb_acc, noun_acc = AverageMeter("verb_acc"), AverageMeter("noun_acc")
        for clips, verb, noun in loader:
            v_logits, n_logits = self.model(clips.to(self.device))
            verb_acc.update((v_logits.argmax(1).cpu() == verb).float().mean().item(), clips.size(0))
            noun_acc.update((n_logits.argmax(1).cpu() == noun).float().mean().item(), clips.size(0))
        return verb_acc.all_reduce().avg, noun_acc.all_reduce().avg

    def save_checkpoint(self, out_dir):
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "checkpoint_%03d.pth" % self.epoch)
        torch.save({"epoch": self.epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}, path)
        logger.info("saved %s", path)
