"""URBAN-SED sound event detection: CRNN with clip (attention) and frame heads, Horovod data parallel.

Each worker takes its own share of the long soundscape files, cuts them into 10 s windows and draws a
fixed number of windows per epoch, so every worker runs the same number of steps.
"""
import argparse
import json
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, RandomSampler

from sed import CLASSES
from sed.data import LongFileWindows, read_annotations
from sed.evaluate import evaluate_shard, reduce_metrics
from sed.model import CRNN


def get_parser():
    p = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--root", default="data/URBAN-SED")
    p.add_argument("--exp", default="exp/crnn")
    p.add_argument("--batch-size", type=int, default=24)
    p.add_argument("--accum", type=int, default=2, help="micro-batches per optimizer step")
    p.add_argument("--steps-per-epoch", type=int, default=500)
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--lr", type=float, default=1e-3, help="for batch-size*accum on one GPU")
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--clip-weight", type=float, default=0.5)
    return p


def main(args):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(20)

    train_files = sorted(read_annotations(args.root, "train"))
    valid_files = sorted(read_annotations(args.root, "validate"))
    train_set = LongFileWindows(args.root, "train", train_files[hvd.rank()::hvd.size()])
    valid_set = LongFileWindows(args.root, "validate", valid_files[hvd.rank()::hvd.size()])
    sampler = RandomSampler(train_set, replacement=True,
                            num_samples=args.steps_per_epoch * args.accum * args.batch_size)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, num_workers=6)
    valid_loader = DataLoader(valid_set, batch_size=args.batch_size, num_workers=6)

    model = CRNN(n_classes=len(CLASSES)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-2)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=args.accum)
    warm = args.warmup_epochs * args.steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    if hvd.rank() == 0:
        os.makedirs(args.exp, exist_ok=True)
    best_f1 = -1.0
    for epoch in range(args.epochs):
        model.train()
        for i, (wav, y, _) in enumerate(train_loader):
            wav, y = wav.to(device), y.to(device)
            frame, clip = model(wav)
            t = min(frame.size(1), y.size(1))
            loss = F.binary_cross_entropy(frame[:, :t], y[:, :t]) + \
                args.clip_weight * F.binary_cross_entropy(clip, y.amax(1))
            (loss / args.accum).backward()
            if (i + 1) % args.accum == 0:
                opt.step()
                opt.zero_grad()
                sched.step()

        metrics = reduce_metrics(evaluate_shard(model, valid_loader, device))
        if hvd.rank() == 0:
            print(json.dumps({"epoch": epoch, "segment_f1": round(metrics["segment_f1"], 4),
                              "clip_auc": round(metrics["clip_auc"], 4)}), flush=True)
            torch.save(model.state_dict(), os.path.join(args.exp, "last.pt"))
            if metrics["segment_f1"] > best_f1:
                best_f1 = metrics["segment_f1"]
                torch.save(model.state_dict(), os.path.join(args.exp, "best.pt"))


if __name__ == "__main__":
    main(get_parser().parse_args())
