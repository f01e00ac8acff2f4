import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd


def binary_auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class Trainer:
    def __init__(self, model, cfg, device):
        self.model, self.cfg, self.device = model, cfg, device
        opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)
        self.best_auc, self.best_epoch = -1.0, -1
        self.is_root = hvd.rank() == 0
        if self.is_root:
            os.makedirs(cfg.out_dir, exist_ok=True)

    def train_one_epoch(self, loader):
        self.model.train()
        for bags, labels in loader:
            bags, labels = bags.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(bags), labels).backward()
            self.optimizer.step()

    @torch.no_grad()
    def evaluate(self, loader):
        """Whole validation split, run by rank 0 only."""
        self.model.eval()
        scores, labels = [], []
        for bags, y in loader:
            scores.append(torch.softmax(self.model(bags.to(self.device)), 1)[:, 1].cpu())
            labels.append(y)
        return binary_auc(torch.cat(scores).numpy(), torch.cat(labels).numpy())

    def fit(self, train_loader, val_loader):
        stale = 0
        for epoch in range(self.cfg.epochs):
            self.train_one_epoch(train_loader)
            stop = False
            if self.is_root:
                auc = self.evaluate(val_loader)
                print(f"epoch {epoch:3d}  val_auc {auc:.4f}", flush=True)
                if auc > self.best_auc:
                    self.best_auc, self.best_epoch, stale = auc, epoch, 0
                    torch.save(self.model.state_dict(), os.path.join(self.cfg.out_dir, "best_mil.pt"))
                else:
                    stale += 1
                stop = stale >= self.cfg.patience
            if hvd.broadcast_object(stop, root_rank=0, name="early_stop"):
                break
