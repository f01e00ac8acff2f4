import json
import os

import torch
import torch.nn.functional as F

from . import dist


def soft_dice(logits, target, n_classes, eps=1e-5):
    prob = logits.softmax(1)
    onehot = F.one_hot(target, n_classes).permute(0, 3, 1, 2).float()
    inter = (prob * onehot).sum((0, 2, 3))
    denom = prob.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
    return ((2 * inter + eps) / (denom + eps))[1:].mean()


class Trainer:
    def __init__(self, model, optimizer, device, cfg, out_dir):
        self.model, self.optimizer, self.device, self.cfg = model, optimizer, device, cfg
        self.out_dir = out_dir
        self.best = -1.0
        if dist.is_main():
            os.makedirs(out_dir, exist_ok=True)

    def train_epoch(self, loader, epoch):
        self.model.train()
        total, n = 0.0, 0
        for img, msk in loader:
            img, msk = img.to(self.device, non_blocking=True), msk.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            logits = self.model(img)
            loss = F.cross_entropy(logits, msk) + (1.0 - soft_dice(logits, msk, self.cfg.n_classes))
            loss.backward()
            self.optimizer.step()
            total += loss.item()
            n += 1
        return total / max(n, 1)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        scores = []
        for img, msk in loader:
            logits = self.model(img.to(self.device))
            scores.append(soft_dice(logits, msk.to(self.device), self.cfg.n_classes).item())
        return sum(scores) / max(len(scores), 1)

    def save(self, epoch, dice):
        state = {"epoch": epoch, "model": self.model.state_dict(), "dice": dice}
        torch.save(state, os.path.join(self.out_dir, "last.pt"))
        if dice > self.best:
            self.best = dice
            torch.save(state, os.path.join(self.out_dir, "best.pt"))
            with open(os.path.join(self.out_dir, "best.json"), "w") as f:
                json.dump({"epoch": epoch, "dice": dice}, f)
