import os

import torch
import torch.nn as nn
import horovod.torch as hvd


def get_device():
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda")
    return torch.device("cpu")


class Trainer:
    def __init__(self, model, optimizer, device, ckpt_dir, grad_clip=5.0):
        self.model, self.optimizer, self.device = model, optimizer, device
        self.ckpt_dir, self.grad_clip = ckpt_dir, grad_clip
        self.criterion = nn.CrossEntropyLoss()

    def fit_epoch(self, loader):
        self.model.train()
        total = 0.0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.synchronize()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            total += loss.item()
        return total / max(1, len(loader))

    @torch.no_grad()
    def accuracy(self, loader):
        self.model.eval()
        correct = n = 0
        for x, y in loader:
            pred = self.model(x.to(self.device)).argmax(-1).cpu()
            correct += (pred == y).sum().item()
            n += len(y)
        local = torch.tensor(correct / max(n, 1))
        return hvd.allreduce(local, name="dev_acc").item()

    def save(self, epoch, best):
        if hvd.rank() != 0:
            return
        os.makedirs(self.ckpt_dir, exist_ok=True)
        torch.save({"epoch": epoch, "best": best, "model": self.model.state_dict(),
                    "optim": self.optimizer.state_dict()}, os.path.join(self.ckpt_dir, "last.pt"))
