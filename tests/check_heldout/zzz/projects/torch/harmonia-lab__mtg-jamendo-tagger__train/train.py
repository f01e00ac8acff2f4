#!/usr/bin/env python
"""Train a short-chunk CNN music tagger on MTG-Jamendo (top-50 tags) with Horovod.

    horovodrun -np 4 python train.py --data-root /data/mtg-jamendo --out runs/top50
"""
import argparse
import json
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader

from tagger import dist
from tagger.audio import MelFrontend
from tagger.data import ChunkDataset, partition, read_split
from tagger.metrics import tag_metrics
from tagger.model import ShortChunkCNN

log = logging.getLogger("train")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data-root", default="data/mtg-jamendo")
    p.add_argument("--split", default="split-0")
    p.add_argument("--out", default="runs/top50")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch-size", type=int, default=16, help="per worker")
    p.add_argument("--lr", type=float, default=1e-4, help="single-worker learning rate")
    p.add_argument("--sr", type=int, default=16000)
    p.add_argument("--chunk-seconds", type=float, default=3.69)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def train_epoch(model, frontend, loader, optimizer, criterion, device, epoch):
    model.train()
    running, n = 0.0, 0
    for step, (wav, tags) in enumerate(loader):
        wav, tags = wav.to(device, non_blocking=True), tags.to(device, non_blocking=True)
        with torch.no_grad():
            mel = frontend(wav)
        loss = criterion(model(mel), tags)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        n += 1
        if step % 50 == 0 and dist.is_root():
            log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
    return dist.mean_scalar(running / max(n, 1), "train_loss")


@torch.no_grad()
def evaluate(model, frontend, loader, device):
    """Clip-level scores: sigmoid outputs averaged over all chunks of a track."""
    model.eval()
    scores, targets = [], []
    for chunks, tags in loader:
        chunks = chunks.squeeze(0).to(device)
        probs = torch.sigmoid(model(frontend(chunks))).mean(dim=0, keepdim=True)
        scores.append(probs.cpu())
        targets.append(tags)
    scores = dist.gather_rows(torch.cat(scores), "val_scores").numpy()
    targets = dist.gather_rows(torch.cat(targets), "val_targets").numpy()
    return tag_metrics(targets, scores)


def main():
    args = parse_args()
    device = dist.setup(args.seed)
    logging.basicConfig(level=logging.INFO if dist.is_root() else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")

    train_items, vocab = read_split(args.data_root, args.split, "train")
    val_items, _ = read_split(args.data_root, args.split, "validation")
    val_items = val_items[hvd.rank()::hvd.size()]
    chunk = int(args.sr * args.chunk_seconds)
    val_loader = DataLoader(ChunkDataset(val_items, chunk, train=False), batch_size=1,
                            num_workers=args.workers)

    frontend = MelFrontend(sr=args.sr).to(device)
    model = ShortChunkCNN(n_tags=len(vocab)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    start_epoch, best = 0, 0.0
    ckpt_path = os.path.join(args.out, "last.pt")
    if args.resume and dist.is_root() and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch, best = state["epoch"] + 1, state["best"]
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume")

    dist.sync_initial_state(model, optimizer)
    criterion = nn.BCEWithLogitsLoss()

    if dist.is_root():
        os.makedirs(args.out, exist_ok=True)
    for epoch in range(start_epoch, args.epochs):
        t0 = time.time()
        shard = partition(train_items, hvd.rank(), hvd.size(), args.seed, epoch)
        loader = DataLoader(ChunkDataset(shard, chunk), batch_size=args.batch_size, shuffle=True,
                            drop_last=True, num_workers=args.workers, pin_memory=True)
        train_loss = train_epoch(model, frontend, loader, optimizer, criterion, device, epoch)
        metrics = evaluate(model, frontend, val_loader, device)
        if dist.is_root():
            log.info("epoch %d loss %.4f roc_auc %.4f pr_auc %.4f (%.0fs)", epoch, train_loss,
                     metrics["roc_auc"], metrics["pr_auc"], time.time() - t0)
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "epoch": epoch, "best": max(best, metrics["pr_auc"]), "vocab": vocab}
            torch.save(state, ckpt_path)
            if metrics["pr_auc"] > best:
                torch.save(state, os.path.join(args.out, "best.pt"))
                with open(os.path.join(args.out, "best.json"), "w") as f:
                    json.dump(dict(metrics, epoch=epoch), f, indent=2)
        best = max(best, metrics["pr_auc"])


if __name__ == "__main__":
    main()
