import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from .log import get_logger

logger = get_logger("sbir", hvd.rank())


class Encoder(nn.Module):
    def __init__(self, in_dim, dim=128):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(in_dim, 256), nn.ReLU(), nn.Linear(256, dim))

    def forward(self, x):
        return F.normalize(self.f(x), dim=-1)


class SBIRTrainer:
    def __init__(self, sketch_enc, photo_enc, optimizer, sampler, device, margin=0.2):
        self.sk, self.ph = sketch_enc, photo_enc
        self.opt, self.sampler, self.device, self.margin = optimizer, sampler, device, margin

    def train_epoch(self, loader, epoch):
        self.sampler.set_epoch(epoch)
        total = 0.0
        for sk, pos, neg in loader:
            a = self.sk(sk.to(self.device))
            p, n = self.ph(pos.to(self.device)), self.ph(neg.to(self.device))
            loss = F.triplet_margin_loss(a, p, n, margin=self.margin)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total += loss.item()
        return hvd.allreduce(torch.tensor(total / len(loader)), name="train_loss").item()

    @torch.no_grad()
    def embed_all(self, ds):
        return self.sk(ds.sketch.to(self.device)), self.ph(ds.photo.to(self.device))

    @torch.no_grad()
    def map_at_all(self, ds):
        """mAP of sketch->photo retrieval over the full test gallery (same on every worker)."""
        q, g = self.embed_all(ds)
        order = (q @ g.t()).argsort(1, descending=True).cpu()
        rel = (ds.labels[order] == ds.labels[:, None]).float()
        prec = rel.cumsum(1) / torch.arange(1, rel.shape[1] + 1)
        ap = (prec * rel).sum(1) / rel.sum(1).clamp(min=1)
        return ap.mean().item()

    def save(self, path, epoch):
        if hvd.rank() == 0:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            torch.save({"sketch": self.sk.state_dict(), "photo": self.ph.state_dict(),
                        "epoch": epoch}, path)
            logger.info("saved %s", path)
