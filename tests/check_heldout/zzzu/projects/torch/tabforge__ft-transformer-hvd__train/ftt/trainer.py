import json
import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .dist import gather_predictions, is_main, log


def roc_auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if n_pos == 0 or n_neg == 0:
        return 0.5
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class Trainer:
    def __init__(self, model, optimizer, train_loader, valid_loader, cfg, device):
        self.model = model
        self.opt = optimizer
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.cfg = cfg
        self.device = device
        self.out_dir = cfg["train"]["out_dir"]
        self.best_auc = -1.0
        self.bad_epochs = 0

    def train_epoch(self, epoch):
        self.model.train()
        total, n = 0.0, 0
        for x_num, x_cat, y in self.train_loader:
            x_num, x_cat, y = x_num.to(self.device), x_cat.to(self.device), y.to(self.device)
            self.opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(self.model(x_num, x_cat), y)
            loss.backward()
            self.opt.step()
            total += loss.item() * len(y)
            n += len(y)
        stats = hvd.allreduce(torch.tensor([total, float(n)]), op=hvd.Sum, name="train_stats")
        return (stats[0] / stats[1]).item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        scores, labels = [], []
        for x_num, x_cat, y in self.valid_loader:
            scores.append(torch.sigmoid(self.model(x_num.to(self.device), x_cat.to(self.device))).cpu())
            labels.append(y)
        s, l = gather_predictions(torch.cat(scores), torch.cat(labels))
        return float(roc_auc(s.numpy(), l.numpy()))

    def save(self, name, extra=None):
        if not is_main():
            return
        os.makedirs(self.out_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(), "optimizer": self.opt.state_dict(), **(extra or {})},
                   os.path.join(self.out_dir, name))

    def fit(self):
        epochs, patience = self.cfg["train"]["epochs"], self.cfg["train"]["patience"]
        for epoch in range(epochs):
            tr_loss = self.train_epoch(epoch)
            auc = self.evaluate()  # same value on every worker (gathered)
            log(f"epoch {epoch:03d} train_loss {tr_loss:.4f} valid_auc {auc:.4f}")
            if auc > self.best_auc:
                self.best_auc, self.bad_epochs = auc, 0
                self.save("best.pt", {"epoch": epoch, "auc": auc})
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= patience:
                    log(f"early stop at epoch {epoch}, best auc {self.best_auc:.4f}")
                    break
        if is_main():
            with open(os.path.join(self.out_dir, "metrics.json"), "w") as f:
                json.dump({"best_auc": self.best_auc}, f)
        return self.best_auc
