#!/usr/bin/env python
"""Train a CRNN-CTC line recognizer on scanned text lines with Horovod.

    horovodrun -np 8 python train.py --root data/lines --train-list lists/train.txt \
        --val-list lists/val.txt --out runs/crnn
"""
import argparse
import logging
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from crnn import distributed as dist
from crnn.data import build_loader
from crnn.metrics import cer_counts
from crnn.model import CRNN
from crnn.vocab import Charset

log = logging.getLogger("crnn")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--root", default="data/lines")
    p.add_argument("--train-list", default="lists/train.txt")
    p.add_argument("--val-list", default="lists/val.txt")
    p.add_argument("--out", default="runs/crnn")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=64, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="single-worker learning rate")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--resume", default="")
    return p.parse_args()


def train_epoch(model, loader, optimizer, scaler, ctc, device, args):
    model.train()
    total, n = 0.0, 0
    for images, targets, lengths, _ in loader:
        images = images.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=args.amp):
            logp = model(images)
        logp = logp.float().permute(1, 0, 2)  # T, B, K
        in_len = torch.full((logp.size(1),), logp.size(0), dtype=torch.long)
        loss = ctc(logp, targets, in_len, lengths)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        total += loss.item()
        n += 1
    return total / max(n, 1)


@torch.no_grad()
def evaluate(model, loader, charset, device):
    model.eval()
    errs, chars = 0.0, 0.0
    for images, _, _, texts in loader:
        ids = model(images.to(device)).argmax(-1).cpu().tolist()
        preds = [charset.decode_greedy(seq) for seq in ids]
        e, c = cer_counts(preds, texts)
        errs, chars = errs + e, chars + c
    errs, chars = dist.sum_across_ranks(errs, chars)
    return errs / max(chars, 1.0)


def main():
    args = parse_args()
    device = dist.setup()
    logging.basicConfig(level=logging.INFO if dist.is_main() else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    torch.manual_seed(1234)

    charset = Charset.from_list_file(args.train_list)
    train_loader, train_sampler = build_loader(args.root, args.train_list, charset,
                                               args.batch_size, train=True, workers=args.workers)
    val_loader, _ = build_loader(args.root, args.val_list, charset,
                                 args.batch_size, train=False, workers=args.workers)

    model = CRNN(len(charset)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch, best_cer = 0, 1.0
    if args.resume and os.path.isfile(args.resume):
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch, best_cer = state["epoch"] + 1, state["best_cer"]

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.amp else hvd.Compression.none)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)

    os.makedirs(args.out, exist_ok=True)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        loss = train_epoch(model, train_loader, optimizer, scaler, ctc, device, args)
        scheduler.step()
        cer = evaluate(model, val_loader, charset, device)
        log.info("epoch %d loss %.4f val CER %.4f (%.0fs)", epoch, loss, cer, time.time() - t0)
        if dist.is_main():
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "scheduler": scheduler.state_dict(), "epoch": epoch,
                     "best_cer": min(best_cer, cer), "charset": charset.chars}
            torch.save(state, os.path.join(args.out, "last.pt"))
            if cer < best_cer:
                torch.save(state, os.path.join(args.out, "best.pt"))
        best_cer = min(best_cer, cer)


if __name__ == "__main__":
    main()
