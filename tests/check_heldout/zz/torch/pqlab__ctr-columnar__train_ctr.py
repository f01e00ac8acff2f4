# -*- coding: utf-8 -*-
"""
CTR model (wide & deep-ish) on our columnar export.

Layout of a dataset directory (written by tools/export_columnar.py):
    manifest.json               {"row_groups": [{"path": "rg-00000.npz", "num_rows": 81920}, ...]}
    rg-00000.npz                dense: float32 [n, 13], sparse: int64 [n, 26], label: float32 [n]

Run:  mpirun -np 4 python train_ctr.py --train /data/ctr/train --valid /data/ctr/valid
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


# ----------------------------------------------------------------------------- data
class RowGroupReader:
    def __init__(self, root, rank=0, world=1):
        with open(os.path.join(root, "manifest.json")) as f:
            meta = json.load(f)
        self.root = root
        self.groups = meta["row_groups"][rank::world]

    @property
    def num_rows(self):
        return sum(g["num_rows"] for g in self.groups)

    def batches(self, batch_size, shuffle=False, seed=0):
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(self.groups)) if shuffle else range(len(self.groups))
        for gi in order:
            with np.load(os.path.join(self.root, self.groups[gi]["path"])) as z:
                dense, sparse, label = z["dense"], z["sparse"], z["label"]
            idx = rng.permutation(len(label)) if shuffle else np.arange(len(label))
            stop = len(idx) - batch_size + 1 if shuffle else len(idx)
            for s in range(0, stop, batch_size):
                b = idx[s:s + batch_size]
                yield (torch.from_numpy(dense[b]), torch.from_numpy(sparse[b]),
                       torch.from_numpy(label[b]))


# ----------------------------------------------------------------------------- model
class WideDeep(nn.Module):
    def __init__(self, n_dense=13, n_sparse=26, hash_size=100_000, emb=16):
        super().__init__()
        self.hash_size = hash_size
        self.emb = nn.EmbeddingBag(hash_size, emb, mode="sum")
        self.wide = nn.EmbeddingBag(hash_size, 1, mode="sum")
        self.mlp = nn.Sequential(nn.Linear(n_dense + emb, 256), nn.ReLU(),
                                 nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, dense, sparse):
        ids = sparse % self.hash_size
        deep = torch.cat([torch.log1p(dense.clamp(min=0)), self.emb(ids)], dim=1)
        return (self.mlp(deep) + self.wide(ids)).squeeze(1)


# ----------------------------------------------------------------------------- main
parser = argparse.ArgumentParser(description="CTR training")
parser.add_argument("--train", required=True)
parser.add_argument("--valid", required=True)
parser.add_argument("--batch-size", type=int, default=4096)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--hash-size", type=int, default=100_000)
parser.add_argument("--save-dir", default="./ckpt")
args = parser.parse_args()

hvd.init()
torch.manual_seed(2024)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

train_reader = RowGroupReader(args.train, hvd.rank(), hvd.size())
valid_reader = RowGroupReader(args.valid, hvd.rank(), hvd.size())
# row groups are not all the same size: every rank stops after the smallest count of batches
local_steps = train_reader.num_rows // args.batch_size
steps_per_epoch = int(hvd.allreduce(torch.tensor(local_steps), op=hvd.Min, name="steps").item())

model = WideDeep(hash_size=args.hash_size).to(device)
optimizer = torch.optim.Adagrad(model.parameters(), lr=args.lr)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer.state_dict(), root_rank=0)

optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16)
criterion = nn.BCEWithLogitsLoss()


def validate():
    model.eval()
    stats = torch.zeros(3, dtype=torch.float64)  # logloss sum, correct, rows
    with torch.no_grad():
        for dense, sparse, label in valid_reader.batches(8192):
            dense, sparse, label = dense.to(device), sparse.to(device), label.to(device)
            logit = model(dense, sparse)
            stats[0] += nn.functional.binary_cross_entropy_with_logits(
                logit, label, reduction="sum").item()
            stats[1] += ((logit > 0).float() == label).sum().item()
            stats[2] += label.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="valid_stats")
    return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()


for epoch in range(args.epochs):
    model.train()
    t0 = time.time()
    for step, (dense, sparse, label) in enumerate(train_reader.batches(args.batch_size, True, epoch)):
        if step >= steps_per_epoch:
            break
        dense, sparse, label = dense.to(device), sparse.to(device), label.to(device)
        optimizer.zero_grad()
        loss = criterion(model(dense, sparse), label)
        loss.backward()
        optimizer.step()
        if hvd.rank() == 0 and step % 200 == 0:
            print(f"[{epoch}] {step}/{steps_per_epoch} loss={loss.item():.4f}", flush=True)

    logloss, acc = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: valid logloss {logloss:.5f} acc {acc:.4f} ({time.time() - t0:.0f}s)")
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.save_dir, f"widedeep_e{epoch}.pt"))
