import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .data import read_trials
from .model import TDNN


def compute_eer(labels, scores):
    order = np.argsort(-np.asarray(scores))
    labels = np.asarray(labels)[order]
    tp = np.cumsum(labels) / max(labels.sum(), 1)
    fp = np.cumsum(1 - labels) / max((1 - labels).sum(), 1)
    fnr = 1 - tp
    i = np.argmin(np.abs(fnr - fp))
    return float((fnr[i] + fp[i]) / 2)


class Runner:
    def __init__(self, cfg, device):
        self.cfg, self.device = cfg, device
        self.model = TDNN(cfg.model.feat_dim, cfg.model.embed_dim, cfg.model.num_speakers).to(device)
        o = cfg.optim
        opt = torch.optim.SGD(self.model.parameters(), lr=o.lr, momentum=o.momentum, weight_decay=o.weight_decay)
        # gradients are summed over workers, so the single-GPU lr already acts as lr * N on the mean
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters(), op=hvd.Sum)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=o.epochs)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, loader, epoch):
        self.model.train()
        total, n = 0.0, 0
        for x, y in loader:
            x, y = x.to(self.device), y.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total, n = total + loss.item(), n + 1
        self.scheduler.step()
        return total / max(n, 1)

    @torch.no_grad()
    def evaluate(self):
        """EER over the whole trial list (run on one worker)."""
        self.model.eval()
        cache, labels, scores = {}, [], []

        def emb(path):
            if path not in cache:
                x = torch.from_numpy(np.load(path)).float()[None].to(self.device)
                cache[path] = F.normalize(self.model.embedding(x), dim=1)[0]
            return cache[path]

        for target, a, b in read_trials(self.cfg.data.trial_list):
            labels.append(target)
            scores.append(float(emb(a) @ emb(b)))
        return compute_eer(labels, scores)

    def save(self, epoch):
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict()},
                   os.path.join(self.cfg.out_dir, f"xvector_ep{epoch:03d}.pt"))
