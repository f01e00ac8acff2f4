import os
import time

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .utils import logger, weighted_mean, ensure_dir


class NCFTrainer(object):
    def __init__(self, model, optimizers, sampler, device, n_items, out_dir, topk=10):
        self.model = model
        self.optimizers = optimizers
        self.sampler = sampler
        self.device = device
        self.n_items = n_items
        self.out_dir = out_dir
        self.topk = topk

    def _step(self, u, i, y):
        for o in self.optimizers:
            o.zero_grad()
        loss = F.binary_cross_entropy_with_logits(self.model(u, i), y)
        loss.backward()
        for o in self.optimizers:
            o.step()
        return loss.item()

    def train_epoch(self, pos, batch_size, steps):
        self.model.train()
        t0, losses = time.time(), []
        for k, (u, i, y) in enumerate(self.sampler.batches(pos, batch_size)):
            if k >= steps:
                break
            losses.append(self._step(u.to(self.device), i.to(self.device), y.to(self.device)))
        return float(np.mean(losses)) if losses else 0.0, time.time() - t0

    @torch.no_grad()
    def hit_rate(self, test, n_cand=99, seed=123):
        """HR@k with 99 sampled negatives per test user"""
        self.model.eval()
        rng = np.random.RandomState(seed)
        hits = 0
        for s in range(0, len(test), 1024):
            t = test[s:s + 1024]
            cand = np.concatenate([t[:, 1:2], rng.randint(0, self.n_items, (len(t), n_cand))], 1)
            u = torch.from_numpy(np.repeat(t[:, 0], n_cand + 1)).to(self.device)
            i = torch.from_numpy(cand.reshape(-1)).to(self.device)
            sc = self.model(u, i).view(len(t), -1)
            rank = (sc[:, 1:] > sc[:, :1]).sum(1)
            hits += int((rank < self.topk).sum())
        hr_local = hits / max(len(test), 1)
        return weighted_mean(hr_local, len(test), "hr")

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        ensure_dir(self.out_dir)
        torch.save(self.model.state_dict(), os.path.join(self.out_dir, "neumf_ep%02d.pt" % epoch))
