import math
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .meters import Metric, Throughput, accuracy
from .dist import is_master


class AmpTrainer(object):
    def __init__(self, args, model, optimizer, scaler, train_loader, val_loader, sampler):
        self.args = args
        self.model = model
        self.optimizer = optimizer
        self.scaler = scaler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.sampler = sampler
        self.device = "cuda" if args.cuda else "cpu"

    def adjust_lr(self, epoch, batch_idx):
        # warmup from base_lr to base_lr*size (goyal et al.), then step decay
        a = self.args
        if epoch < a.warmup_epochs:
            e = epoch + float(batch_idx + 1) / len(self.train_loader)
            lr_adj = 1. / hvd.size() * (e * (hvd.size() - 1) / a.warmup_epochs + 1)
        elif epoch < 30:
            lr_adj = 1.
        elif epoch < 60:
            lr_adj = 1e-1
        else:
            lr_adj = 1e-2
        for g in self.optimizer.param_groups:
            g["lr"] = a.base_lr * hvd.size() * lr_adj

    def train_epoch(self, epoch):
        self.model.train()
        self.sampler.set_epoch(epoch)
        loss_m, acc_m = Metric("train_loss"), Metric("train_acc")
        tput = Throughput()
        for i, (x, y) in enumerate(self.train_loader):
            self.adjust_lr(epoch, i)
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            with torch.autocast(device_type="cuda", enabled=self.args.amp and self.args.cuda):
                out = self.model(x)
                loss = F.cross_entropy(out, y)
            self.scaler.scale(loss).backward()
            # allreduce has to finish before unscale/clip, then step without a second sync
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            if self.args.clip_grad > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_grad)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            loss_m.update(loss)
            acc_m.update(accuracy(out, y))
            tput.step(x.size(0))
            if i % self.args.log_interval == 0:
                per_rank, total = tput.rates()
                if is_master():
                    print("epoch %d it %d loss %.4f acc %.3f | %.1f img/s/rank, %.1f img/s total"
                          % (epoch, i, loss_m.avg, acc_m.avg, per_rank, total))
                tput.reset()
        return loss_m.avg, acc_m.avg

    @torch.no_grad()
    def validate(self, epoch):
        self.model.eval()
        loss_m, acc_m = Metric("val_loss"), Metric("val_acc")
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            with torch.autocast(device_type="cuda", enabled=self.args.amp and self.args.cuda):
                out = self.model(x)
            loss_m.update(F.cross_entropy(out.float(), y))
            acc_m.update(accuracy(out, y))
        if is_master():
            print("epoch %d val loss %.4f val acc %.4f" % (epoch, loss_m.avg, acc_m.avg))
        return loss_m.avg, acc_m.avg
