#!/usr/bin/env python
"""Train a CRNN keyword spotter on precomputed log-mel features with Horovod.

    horovodrun -np 4 python train.py --train-manifest data/train.csv --valid-manifest data/valid.csv
"""
import argparse
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader

from kws.data import FeatureDataset, pad_collate
from kws.engine import Trainer
from kws.log import get_logger
from kws.model import CRNN
from kws.sampler import DistributedBucketSampler


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--train-manifest", default="data/train.csv")
    p.add_argument("--valid-manifest", default="data/valid.csv")
    p.add_argument("--batch-size", type=int, default=64, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="single-worker learning rate")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default="runs/crnn")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(1234)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    log = get_logger("kws", rank=hvd.rank())

    train_set = FeatureDataset(args.train_manifest)
    valid_set = FeatureDataset(args.valid_manifest, labels=list(train_set.label_to_idx))
    train_sampler = DistributedBucketSampler(train_set.lengths, args.batch_size,
                                             num_replicas=hvd.size(), rank=hvd.rank(), seed=1234)
    valid_sampler = DistributedBucketSampler(valid_set.lengths, args.batch_size,
                                             num_replicas=hvd.size(), rank=hvd.rank(),
                                             shuffle=False, drop_last=False)
    train_loader = DataLoader(train_set, batch_sampler=train_sampler, collate_fn=pad_collate,
                              num_workers=args.workers)
    valid_loader = DataLoader(valid_set, batch_sampler=valid_sampler, collate_fn=pad_collate,
                              num_workers=args.workers)

    model = CRNN(n_mels=train_set.n_mels, n_classes=train_set.n_classes).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-2)

    start_epoch = 0
    ckpt_path = os.path.join(args.out, "last.pt")
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        log.info("resumed from %s (epoch %d)", ckpt_path, state["epoch"])
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    trainer = Trainer(model, optimizer, device, log, args.out, amp=args.amp)
    best_acc, bad_epochs = 0.0, 0
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.train_epoch(train_loader, epoch)
        val_loss, val_acc = trainer.evaluate(valid_loader)
        log.info("epoch %d  val_loss %.4f  val_acc %.4f", epoch, val_loss, val_acc)
        trainer.save(epoch, val_acc)
        if val_acc > best_acc:
            best_acc, bad_epochs = val_acc, 0
        else:
            bad_epochs += 1
            if bad_epochs >= args.patience:
                log.info("no improvement for %d epochs, stopping", bad_epochs)
                break


if __name__ == "__main__":
    main()
