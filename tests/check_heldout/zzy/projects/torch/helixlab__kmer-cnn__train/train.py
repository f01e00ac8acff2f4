#!/usr/bin/env python
"""Train a k-mer CNN on promoter / background windows with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --k 5 --epochs 30
"""
import argparse
import json
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from kmerseq import hvd_utils
from kmerseq.data import fetch_dataset, make_loaders
from kmerseq.model import KmerCNN


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data-url", default="https://data.helixlab.example.org/promoters/windows_v2.npz")
    p.add_argument("--cache-dir", default=os.path.expanduser("~/.cache/kmerseq"))
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--base-lr", type=float, default=1e-3, help="lr for one worker")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--out", default="runs/kmer_cnn")
    return p.parse_args()


def train_one_epoch(model, loader, optimizer, epoch):
    model.train()
    loader.sampler.set_epoch(epoch)
    total = 0.0
    for tokens, y in loader:
        tokens, y = tokens.to(hvd_utils.DEVICE), y.to(hvd_utils.DEVICE)
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(tokens).squeeze(1), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / max(1, len(loader))


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    scores, labels = [], []
    for tokens, y in loader:
        scores.append(torch.sigmoid(model(tokens.to(hvd_utils.DEVICE)).squeeze(1)).cpu())
        labels.append(y)
    scores = hvd.allgather(torch.cat(scores), name="val_scores")
    labels = hvd.allgather(torch.cat(labels), name="val_labels")
    return hvd_utils.auroc(labels.numpy(), scores.numpy())


def main():
    args = parse_args()
    rank, world = hvd_utils.setup()
    torch.manual_seed(args.seed)

    path = fetch_dataset(args.data_url, args.cache_dir)
    train_loader, val_loader = make_loaders(path, args.k, args.batch_size, args.seed)

    model = KmerCNN(args.k).to(hvd_utils.DEVICE)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.base_lr * world, weight_decay=1e-2)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd_utils.sync_initial_state(model, optimizer)

    best = 0.0
    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
    for epoch in range(args.epochs):
        t0 = time.time()
        loss = train_one_epoch(model, train_loader, optimizer, epoch)
        auc = evaluate(model, val_loader)
        if rank == 0:
            print(json.dumps({"epoch": epoch, "loss": round(loss, 4), "val_auroc": round(auc, 4),
                              "sec": round(time.time() - t0, 1)}), flush=True)
            if auc > best:
                best = auc
                torch.save({"model": model.state_dict(), "k": args.k, "epoch": epoch},
                           os.path.join(args.out, "best.pt"))


if __name__ == "__main__":
    main()
