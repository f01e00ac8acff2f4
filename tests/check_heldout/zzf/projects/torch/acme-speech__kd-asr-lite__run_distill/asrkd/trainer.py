import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .env import IS_MAIN, log


class DistillTrainer:
    def __init__(self, teacher, student, optimizer, device, temperature=2.0, kd_weight=0.7, out_dir="exp"):
        self.teacher, self.student, self.optimizer = teacher.to(device), student.to(device), optimizer
        self.device, self.T, self.kd_weight, self.out_dir = device, temperature, kd_weight, out_dir
        hvd.broadcast_parameters(self.student.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.best_acc = 0.0

    def loss(self, feats, labels):
        with torch.no_grad():
            t = self.teacher(feats)
        s = self.student(feats)
        kd = F.kl_div(F.log_softmax(s / self.T, -1), F.softmax(t / self.T, -1), reduction="batchmean")
        return self.kd_weight * kd * self.T ** 2 + (1 - self.kd_weight) * F.cross_entropy(s, labels)

    def train_epoch(self, loader, epoch, scheduler=None):
        self.student.train()
        loader.sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            loss = self.loss(x.to(self.device), y.to(self.device))
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.student.parameters(), 5.0)
            self.optimizer.step()
            if scheduler is not None:
                scheduler.step()
            if step % 200 == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f}")

    @torch.no_grad()
    def evaluate(self, loader):
        self.student.eval()
        hits = n = 0
        for x, y in loader:
            pred = self.student(x.to(self.device)).argmax(-1).cpu()
            hits += (pred == y).sum().item()
            n += len(y)
        return hits / max(n, 1)

    def save(self, epoch, acc):
        if not IS_MAIN:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "acc": acc, "state_dict": self.student.state_dict()},
                   os.path.join(self.out_dir, "student_last.pt"))
        if acc > self.best_acc:
            self.best_acc = acc
            torch.save(self.student.state_dict(), os.path.join(self.out_dir, "student_best.pt"))

    def fit(self, train_loader, val_loader, epochs, scheduler=None):
        for epoch in range(epochs):
            self.train_epoch(train_loader, epoch, scheduler)
            acc = self.evaluate(val_loader)
            log(f"epoch {epoch}: val acc {acc:.4f} (best {max(acc, self.best_acc):.4f})")
            self.save(epoch, acc)
