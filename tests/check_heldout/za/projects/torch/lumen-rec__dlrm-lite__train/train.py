#!/usr/bin/env python
# DLRM-style CTR model on the hashed click logs (see preprocess/ for the npz layout).
import argparse
import os
import time

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn.functional as F

from dlrm.ckpt import load_checkpoint, save_checkpoint
from dlrm.data import make_loader
from dlrm.model import DLRM
from dlrm.utils import get_device, roc_auc, seed_everything

p = argparse.ArgumentParser()
p.add_argument("--train", default="/data/clicks/train.npz")
p.add_argument("--valid", default="/data/clicks/valid.npz")
p.add_argument("--table-sizes", default="/data/clicks/cardinalities.txt")
p.add_argument("--emb-dim", type=int, default=64)
p.add_argument("--batch-size", type=int, default=2048, help="per worker")
p.add_argument("--lr", type=float, default=0.05)
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--eval-every", type=int, default=2000)
p.add_argument("--ckpt", default="checkpoints/dlrm.pt")
p.add_argument("--resume", action="store_true")
p.add_argument("--seed", type=int, default=1234)
p.add_argument("--workers", type=int, default=4)
args = p.parse_args()

hvd.init()
device = get_device()
seed_everything(args.seed)

with open(args.table_sizes) as f:
    table_sizes = [int(x) for x in f.read().split()]
model = DLRM(table_sizes, dim=args.emb_dim).to(device)

train_loader = make_loader(args.train, args.batch_size, args.seed, train=True, workers=args.workers)
valid_loader = make_loader(args.valid, 8192, args.seed, train=False, workers=args.workers)

optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     sparse_as_dense=True)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

step = 0
if args.resume and os.path.exists(args.ckpt) and hvd.rank() == 0:
    step = load_checkpoint(args.ckpt, model, optimizer)
    print(f"resumed from {args.ckpt} at step {step}", flush=True)


@torch.no_grad()
def validate():
    model.eval()
    preds, labels = [], []
    for dense, sparse, y in valid_loader:
        preds.append(torch.sigmoid(model(dense.to(device), sparse.to(device))).cpu())
        labels.append(y)
    preds = hvd.allgather(torch.cat(preds), name="val_preds")
    labels = hvd.allgather(torch.cat(labels), name="val_labels")
    model.train()
    return roc_auc(labels.numpy(), preds.numpy()), F.binary_cross_entropy(preds, labels).item()


for epoch in range(args.epochs):
    t0 = time.time()
    for dense, sparse, y in train_loader:
        dense, sparse, y = dense.to(device), sparse.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(dense, sparse), y)
        loss.backward()
        optimizer.step()
        step += 1
        if step % args.eval_every == 0:
            auc, logloss = validate()
            if hvd.rank() == 0:
                print(f"step {step} train_loss {loss.item():.4f} val_auc {auc:.4f} val_logloss {logloss:.4f}",
                      flush=True)
            save_checkpoint(args.ckpt, model, optimizer, step)
    auc, logloss = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch} done in {time.time() - t0:.0f}s val_auc {auc:.4f} val_logloss {logloss:.4f}")
    save_checkpoint(args.ckpt, model, optimizer, step)
