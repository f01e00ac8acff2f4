"""CTR ranker (DeepFM-lite) training on the ads cluster.

    horovodrun -np 16 -H gpu-a01:8,gpu-a02:8 python scripts/train.py \
        --train /shared/ctr/day_0_22.npz --valid /shared/ctr/day_23.npz

Embeddings are sparse (hashed categorical features, 2^20 buckets), so they get their own
SparseAdam; the dense tower uses Adam.
"""
import argparse
import os
import time

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--train", default="/shared/ctr/train.npz")
parser.add_argument("--valid", default="/shared/ctr/valid.npz")
parser.add_argument("--model-dir", default="/shared/ctr/models/deepfm_lite")
parser.add_argument("--buckets", type=int, default=1 << 20)
parser.add_argument("--emb-dim", type=int, default=16)
parser.add_argument("--batch-size", type=int, default=4096)
parser.add_argument("--dense-lr", type=float, default=1e-3)
parser.add_argument("--sparse-lr", type=float, default=1e-2)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--log-every", type=int, default=200)


class DeepFMLite(nn.Module):
    def __init__(self, n_dense, n_fields, buckets, dim):
        super().__init__()
        self.emb = nn.Embedding(buckets, dim, sparse=True)
        self.lin = nn.Embedding(buckets, 1, sparse=True)
        self.dense_proj = nn.Linear(n_dense, dim)
        self.mlp = nn.Sequential(nn.Linear((n_fields + 1) * dim, 256), nn.ReLU(),
                                 nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, dense, cats):
        e = torch.cat([self.emb(cats), self.dense_proj(dense).unsqueeze(1)], dim=1)   # B, F+1, D
        fm = 0.5 * (e.sum(1).pow(2) - e.pow(2).sum(1)).sum(1)
        return self.lin(cats).sum((1, 2)) + fm + self.mlp(e.flatten(1)).squeeze(1)


def load(path):
    blob = np.load(path)
    return TensorDataset(torch.from_numpy(blob["dense"]).float(), torch.from_numpy(blob["cats"]).long(),
                         torch.from_numpy(blob["label"]).float())


def main():
    args = parser.parse_args()
    hvd.init()
    rank = hvd.local_rank()
    if torch.cuda.is_available():
        torch.cuda.set_device(rank)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_ds, valid_ds = load(args.train), load(args.valid)
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=rank, shuffle=True)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, drop_last=True)
    valid_loader = DataLoader(valid_ds, batch_size=args.batch_size)

    n_dense, n_fields = train_ds.tensors[0].shape[1], train_ds.tensors[1].shape[1]
    model = DeepFMLite(n_dense, n_fields, args.buckets, args.emb_dim).to(device)
    sparse_names = {"emb.weight", "lin.weight"}
    dense_named = [(n, p) for n, p in model.named_parameters() if n not in sparse_names]
    dense_opt = torch.optim.Adam([p for _, p in dense_named], lr=args.dense_lr * hvd.size())
    dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=dense_named)
    sparse_opt = torch.optim.SparseAdam([model.emb.weight, model.lin.weight], lr=args.sparse_lr * hvd.size())

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(dense_opt, root_rank=0)
    criterion = nn.BCEWithLogitsLoss()

    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        for step, (dense, cats, label) in enumerate(train_loader):
            dense, cats, label = dense.to(device), cats.to(device), label.to(device)
            dense_opt.zero_grad()
            sparse_opt.zero_grad()
            loss = criterion(model(dense, cats), label)
            loss.backward()
            dense_opt.step()
            sparse_opt.step()
            if rank == 0 and step % args.log_every == 0:
                print(f"[{epoch}:{step}] loss {loss.item():.5f} ({time.time() - t0:.0f}s)", flush=True)

        model.eval()
        stats = torch.zeros(3)
        with torch.no_grad():
            for dense, cats, label in valid_loader:
                logit = model(dense.to(device), cats.to(device)).cpu()
                stats[0] += nn.functional.binary_cross_entropy_with_logits(logit, label, reduction="sum")
                stats[1] += ((logit > 0).float() == label).sum()
                stats[2] += len(label)
        stats = hvd.allreduce(stats, name="valid_stats")   # every rank scored the full day; average is identical
        if rank == 0:
            print(f"epoch {epoch}: valid logloss {stats[0] / stats[2]:.5f} acc {stats[1] / stats[2]:.4f}")
            os.makedirs(args.model_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.model_dir, f"model_e{epoch}.pt"))


if __name__ == "__main__":
    main()
