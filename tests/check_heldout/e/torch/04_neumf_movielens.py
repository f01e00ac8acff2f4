"""NeuMF (He et al. 2017) on MovieLens-1M, leave-one-out HR@10 / NDCG@10, Horovod data parallel.

Converted from my single-GPU notebook; run with  horovodrun -np 8 python 04_neumf_movielens.py
"""
import math
import os

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

CONFIG = {
    "data_dir": os.environ.get("ML1M_DIR", "/scratch/ml-1m"),
    "factors": 32,
    "mlp_layers": [128, 64, 32],
    "num_neg": 4,
    "batch_size": 2048,
    "epochs": 20,
    "seed": 2017,
    "topk": 10,
    "optimizer": {"lr": 1e-3, "betas": (0.9, 0.999), "weight_decay": 0.0},
    "ckpt": "neumf_best.pt",
}


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, k, layers):
        super().__init__()
        self.gmf_u, self.gmf_i = nn.Embedding(n_users, k), nn.Embedding(n_items, k)
        self.mlp_u = nn.Embedding(n_users, layers[0] // 2)
        self.mlp_i = nn.Embedding(n_items, layers[0] // 2)
        mlp = []
        for a, b in zip(layers[:-1], layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.out = nn.Linear(k + layers[-1], 1)
        for emb in (self.gmf_u, self.gmf_i, self.mlp_u, self.mlp_i):
            nn.init.normal_(emb.weight, std=0.01)

    def forward(self, u, i):
        gmf = self.gmf_u(u) * self.gmf_i(i)
        mlp = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], dim=-1))
        return self.out(torch.cat([gmf, mlp], dim=-1)).squeeze(-1)


def load_ml1m(path):
    df = pd.read_csv(os.path.join(path, "ratings.dat"), sep="::", engine="python",
                     names=["user", "item", "rating", "ts"])
    df["user"] = df["user"].astype("category").cat.codes
    df["item"] = df["item"].astype("category").cat.codes
    df = df.sort_values(["user", "ts"])
    last = df.groupby("user").tail(1)
    train = df.drop(last.index)
    return train, last, df["user"].nunique(), df["item"].nunique()


def build_epoch_data(train, n_items, num_neg, rng):
    users = np.repeat(train["user"].values, 1 + num_neg)
    items = np.repeat(train["item"].values, 1 + num_neg)
    labels = np.tile(np.r_[1.0, np.zeros(num_neg)], len(train)).astype(np.float32)
    neg_mask = labels == 0
    items[neg_mask] = rng.integers(0, n_items, neg_mask.sum())  # approximate: no rejection
    return TensorDataset(torch.from_numpy(users).long(), torch.from_numpy(items).long(),
                         torch.from_numpy(labels))


@torch.no_grad()
def evaluate(model, test, n_items, device, topk):
    """HR/NDCG with 99 sampled negatives; each worker takes every size-th test user."""
    model.eval()
    rng = np.random.default_rng(0)
    negs = rng.integers(0, n_items, (len(test), 99))  # same table on every worker
    hits = ndcg = 0.0
    users, items = test["user"].values, test["item"].values
    for row in range(hvd.rank(), len(test), hvd.size()):
        cand = torch.from_numpy(np.r_[items[row], negs[row]]).long().to(device)
        u = torch.full_like(cand, int(users[row]))
        scores = model(u, cand)
        rank_of_pos = (scores[1:] > scores[0]).sum().item()
        if rank_of_pos < topk:
            hits += 1
            ndcg += 1.0 / math.log2(rank_of_pos + 2)
    n_mine = len(range(hvd.rank(), len(test), hvd.size()))
    tot = hvd.allreduce(torch.tensor([hits, ndcg, float(n_mine)]), op=hvd.Sum, name="hr")
    return (tot[0] / tot[2]).item(), (tot[1] / tot[2]).item()


def main(cfg):
    hvd.init()
    device = torch.device(f"cuda:{hvd.rank()}")
    torch.cuda.set_device(device)
    torch.manual_seed(cfg["seed"])

    train, test, n_users, n_items = load_ml1m(cfg["data_dir"])
    model = NeuMF(n_users, n_items, cfg["factors"], cfg["mlp_layers"]).to(device)
    opt = torch.optim.Adam(model.parameters(), **cfg["optimizer"])
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    loss_fn = nn.BCEWithLogitsLoss()

    best_hr = 0.0
    for epoch in range(cfg["epochs"]):
        # negatives drawn with the epoch's seed: identical data set on all workers,
        # so the sampler's partition is consistent
        ds = build_epoch_data(train, n_items, cfg["num_neg"],
                              np.random.default_rng(cfg["seed"] + epoch))
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                     shuffle=True, seed=cfg["seed"])
        sampler.set_epoch(epoch)
        loader = DataLoader(ds, batch_size=cfg["batch_size"], sampler=sampler,
                            num_workers=2, pin_memory=True)
        model.train()
        for u, i, y in loader:
            u, i, y = u.to(device), i.to(device), y.to(device)
            opt.zero_grad()
            loss = loss_fn(model(u, i), y)
            loss.backward()
            opt.step()
        hr, ndcg = evaluate(model, test, n_items, device, cfg["topk"])
        if hvd.rank() == 0:
            print(f"[{epoch:02d}] HR@{cfg['topk']}={hr:.4f} NDCG@{cfg['topk']}={ndcg:.4f}")
            if hr > best_hr:
                best_hr = hr
                torch.save(model.state_dict(), cfg["ckpt"])


if __name__ == "__main__":
    main(CONFIG)
