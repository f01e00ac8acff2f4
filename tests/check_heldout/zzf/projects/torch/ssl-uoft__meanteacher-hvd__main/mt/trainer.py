import math
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .checkpoint import save_checkpoint
from .ema import update_ema


def sigmoid_rampup(epoch, length):
    if length == 0:
        return 1.0
    phase = 1.0 - min(epoch, length) / length
    return math.exp(-5.0 * phase * phase)


class MeanTeacherTrainer:
    def __init__(self, cfg, student, teacher, optimizer, loaders, device):
        self.cfg, self.student, self.teacher, self.optimizer = cfg, student, teacher, optimizer
        self.labeled, self.unlabeled, self.test = loaders
        self.device = device
        self.global_step = 0
        self.best = 0.0

    def train_epoch(self, epoch):
        self.student.train()
        self.teacher.train()
        w = self.cfg.consistency * sigmoid_rampup(epoch, self.cfg.rampup_epochs)
        t0 = time.time()
        for i, ((xl, yl), (xu1, xu2)) in enumerate(zip(self.labeled, self.unlabeled)):
            xl, yl = xl.to(self.device), yl.to(self.device)
            xu1, xu2 = xu1.to(self.device), xu2.to(self.device)
            sup = F.cross_entropy(self.student(xl), yl)
            with torch.no_grad():
                target = F.softmax(self.teacher(xu2), dim=1)
            cons = F.mse_loss(F.softmax(self.student(xu1), dim=1), target)
            loss = sup + w * cons
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            update_ema(self.teacher, self.student, self.cfg.ema_decay, self.global_step)
            self.global_step += 1
            if hvd.rank() == 0 and i % self.cfg.log_every == 0:
                print(f"ep {epoch} it {i} sup {sup.item():.3f} cons {cons.item():.4f} ({time.time() - t0:.1f}s)")

    @torch.no_grad()
    def evaluate(self, model):
        model.eval()
        correct = seen = 0
        for x, y in self.test:
            x, y = x.to(self.device), y.to(self.device)
            correct += (model(x).argmax(1) == y).sum().item()
            seen += y.numel()
        acc = torch.tensor(correct / max(seen, 1))
        return hvd.allreduce(acc, name="eval_acc").item()

    def fit(self, start_epoch=0):
        for epoch in range(start_epoch, self.cfg.epochs):
            self.labeled.sampler.set_epoch(epoch)
            self.unlabeled.sampler.set_epoch(epoch)
            self.train_epoch(epoch)
            s_acc, t_acc = self.evaluate(self.student), self.evaluate(self.teacher)
            if hvd.rank() == 0:
                print(f"epoch {epoch}: student {s_acc:.4f} teacher {t_acc:.4f}")
            is_best = t_acc > self.best
            self.best = max(self.best, t_acc)
            save_checkpoint(self.cfg.out_dir, epoch, self.student, self.teacher, self.optimizer, best=is_best)
