"""LR x warm-up sweep for LARS vs SGD at large batch.

usage: horovodrun -np 16 python sweep.py --opt lars --lrs 0.1,0.2,0.4 --warmups 2,5
"""
import argparse
import itertools
import os

import torch
import horovod.torch as hvd

from lbs import TrialConfig
from lbs.trainer import Trainer


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", default="lars", choices=["lars", "sgd"])
    ap.add_argument("--lrs", default="0.1,0.2,0.4")
    ap.add_argument("--warmups", default="2,5")
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--out-dir", default="sweeps")
    return ap.parse_args()


def write_table(rows, path):
    with open(path, "w") as f:
        f.write("| optimizer | base lr | warmup | global batch | best acc |\n|---|---|---|---|---|\n")
        for r in rows:
            f.write("| {opt} | {lr} | {wu} | {gb} | {acc:.4f} |\n".format(**r))


def main():
    args = parse()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    base = TrialConfig(optimizer=args.opt, batch_size=args.batch_size,
                       epochs=args.epochs, out_dir=args.out_dir)
    rows = []
    for lr, wu in itertools.product([float(v) for v in args.lrs.split(",")],
                                    [int(v) for v in args.warmups.split(",")]):
        cfg = base.with_(base_lr=lr, warmup_epochs=wu)
        acc = Trainer(cfg).fit()
        rows.append(dict(opt=args.opt, lr=lr, wu=wu, gb=args.batch_size * hvd.size(), acc=acc))
        if hvd.rank() == 0:
            print(f"lr={lr} warmup={wu} best_acc={acc:.4f}", flush=True)
    if hvd.rank() == 0:
        os.makedirs(args.out_dir, exist_ok=True)
        write_table(rows, os.path.join(args.out_dir, f"sweep_{args.opt}_np{hvd.size()}.md"))


if __name__ == "__main__":
    main()
