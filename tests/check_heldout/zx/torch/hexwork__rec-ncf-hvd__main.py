"""Neural Collaborative Filtering (NeuMF) on MovieLens-1M with Horovod.

horovodrun -np 4 python main.py --data ml-1m/ratings.dat --epochs 20
"""
import argparse
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def parse_args():
    parser = argparse.ArgumentParser(description="NeuMF + Horovod")
    parser.add_argument("--data", type=str, default="ml-1m/ratings.dat")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--factors", type=int, default=32)
    parser.add_argument("--layers", type=str, default="64,32,16")
    parser.add_argument("--num-neg", type=int, default=4)
    parser.add_argument("--topk", type=int, default=10)
    parser.add_argument("--log-every", type=int, default=100)
    parser.add_argument("--save-dir", type=str, default="models")
    parser.add_argument("--seed", type=int, default=42)
    return parser.parse_args()


def load_ratings(path):
    with open(path) as f:
        raw = np.array([[int(v) for v in line.split("::")[:4]] for line in f], dtype=np.int64)[:, [0, 1, 3]]
    users, items = np.unique(raw[:, 0], return_inverse=True)[1], np.unique(raw[:, 1], return_inverse=True)[1]
    order = np.lexsort((raw[:, 2], users))
    users, items = users[order], items[order]
    last = np.r_[users[1:] != users[:-1], True]          # leave-one-out: latest rating per user
    train = np.stack([users[~last], items[~last]], 1)
    test = np.stack([users[last], items[last]], 1)
    return train, test, users.max() + 1, items.max() + 1


class NegSampling(Dataset):
    def __init__(self, pos, n_items, num_neg, seen):
        self.pos, self.n_items, self.num_neg, self.seen = pos, n_items, num_neg, seen

    def __len__(self):
        return len(self.pos) * (1 + self.num_neg)

    def __getitem__(self, idx):
        u, i = self.pos[idx // (1 + self.num_neg)]
        if idx % (1 + self.num_neg) == 0:
            return u, i, 1.0
        j = random.randrange(self.n_items)
        while j in self.seen[u]:
            j = random.randrange(self.n_items)
        return u, j, 0.0


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, factors, layers):
        super().__init__()
        self.gmf_u, self.gmf_i = nn.Embedding(n_users, factors), nn.Embedding(n_items, factors)
        self.mlp_u, self.mlp_i = nn.Embedding(n_users, layers[0] // 2), nn.Embedding(n_items, layers[0] // 2)
        mlp = []
        for a, b in zip(layers[:-1], layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.out = nn.Linear(factors + layers[-1], 1)

    def forward(self, u, i):
        gmf = self.gmf_u(u) * self.gmf_i(i)
        mlp = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], -1))
        return self.out(torch.cat([gmf, mlp], -1)).squeeze(-1)


@torch.no_grad()
def hit_rate(model, test, n_items, seen, topk, device, rank, size):
    """HR@k with 99 sampled negatives per user; users are split across workers."""
    rng = np.random.default_rng(0)
    hits = torch.zeros(2)
    for u, i in test[rank::size]:
        negs = rng.choice(n_items, 99, replace=False)
        negs = negs[~np.isin(negs, list(seen[u]))]
        cands = torch.tensor(np.r_[i, negs], device=device)
        scores = model(torch.full_like(cands, u), cands)
        hits += torch.tensor([float(0 in torch.topk(scores, topk).indices), 1.0])
    hits = hvd.allreduce(hits, op=hvd.Sum)
    return (hits[0] / hits[1]).item()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(args.seed)
    random.seed(args.seed + hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train, test, n_users, n_items = load_ratings(args.data)
    seen = [set() for _ in range(n_users)]
    for u, i in train:
        seen[u].add(i)
    dataset = NegSampling(train, n_items, args.num_neg, seen)
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4)

    model = NeuMF(n_users, n_items, args.factors, [int(x) for x in args.layers.split(",")]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    criterion = nn.BCEWithLogitsLoss()

    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        for batch_idx, (u, i, y) in enumerate(loader):
            u, i, y = u.to(device), i.to(device), y.float().to(device)
            optimizer.zero_grad()
            loss = criterion(model(u, i), y)
            # average the loss over workers so every replica sees the same objective
            loss = hvd.allreduce(loss, name="loss")
            loss.backward()
            optimizer.step()
            if batch_idx % args.log_interval == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} [{batch_idx}/{len(loader)}] loss {loss.item():.4f}")

        model.eval()
        hr = hit_rate(model, test, n_items, seen, args.topk, device, hvd.rank(), hvd.size())
        if hvd.rank() == 0:
            print(f"epoch {epoch}: HR@{args.topk} = {hr:.4f} ({time.time() - t0:.1f}s)")
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.save_dir, f"neumf_{epoch}.pt"))


if __name__ == "__main__":
    main()
