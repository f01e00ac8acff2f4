import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .utils import AverageMeter, accuracy, append_csv, save_checkpoint


class Trainer:
    def __init__(self, model, optimizer, cfg, device, lr):
        self.model = model
        self.optimizer = optimizer
        self.cfg = cfg
        self.device = device
        self.lr = lr
        self.best_acc = 0.0

    def unfreeze(self):
        backbone = [p for n, p in self.model.named_parameters() if not n.startswith("fc.")]
        for p in backbone:
            p.requires_grad = True
        # part 3 of the handout: pretrained layers get 10x smaller lr than the head
        self.optimizer.add_param_group({"params": backbone, "lr": 0.1 * self.lr})

    def train_epoch(self, loader, epoch):
        self.model.train()
        loss_meter = AverageMeter()
        t0 = time.time()
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(images), labels)
            loss.backward()
            self.optimizer.step()
            loss_meter.update(loss.item(), images.size(0))
        if hvd.rank() == 0:
            print(f"epoch {epoch} train loss {loss_meter.avg:.4f} ({time.time() - t0:.0f}s)")
        return loss_meter.avg

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = torch.zeros(1)
        total = torch.zeros(1)
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            correct += accuracy(self.model(images), labels)
            total += labels.size(0)
        correct = hvd.allreduce(correct, name="val_correct", op=hvd.Sum)
        total = hvd.allreduce(total, name="val_total", op=hvd.Sum)
        return (correct / total).item()

    def save(self, epoch, acc):
        is_best = acc > self.best_acc
        self.best_acc = max(acc, self.best_acc)
        state = {"epoch": epoch, "model": self.model.state_dict(),
                 "optimizer": self.optimizer.state_dict(), "best_acc": self.best_acc}
        save_checkpoint(state, is_best, self.cfg["out_dir"])

    def log(self, epoch, loss, acc):
        if hvd.rank() == 0:
            append_csv(os.path.join(self.cfg["out_dir"], "log.csv"),
                       {"epoch": epoch, "train_loss": round(loss, 4), "val_acc": round(acc, 4)})
