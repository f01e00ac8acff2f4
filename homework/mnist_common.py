"""The parts of the four homework scripts that have nothing to do with Horovod: options, data, metrics file.

Kept out of the scripts so that `diff tensorflow2_mnist.py tensorflow2_mnist_hvd.py` shows only the
conversion. Framework-free (numpy only).
"""
import argparse
import json
import os
import sys

import numpy as np

from hvdkit.common.argtypes import Parser, positive_int
from hvdkit.common.files import write_json
from hvdkit.data import datasets
from hvdkit.scale.job import current as current_job


def parser(doc, horovod=False):
    """The scripts' options; with horovod=True also --warmup-epochs."""
    p = Parser(description=doc.strip().splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--dataset", default="mnist", choices=datasets.NAMES,
                   help="fashion-mnist is installed by `make setup` on machines without MNIST")
    p.add_argument("--data-dir", help="directory with the data set (also searched: $HVDKIT_DATA, Keras's cache)")
    p.add_argument("--epochs", type=int, default=16)
    p.add_argument("--batch-size", type=positive_int, default=256, help="samples per step (per rank, with Horovod)")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate for one worker")
    p.add_argument("--subset", type=int, default=0, help="use only the first N training and N validation images")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--metrics", help="write per-epoch loss, accuracy and time to this JSON file")
    p.add_argument("--checkpoint-dir", help="save a checkpoint every epoch here, and resume from the latest")
    if horovod:
        p.add_argument("--warmup-epochs", type=float, default=0.0,
                       help="ramp the LR from --lr to --lr x ranks over this many epochs (Goyal et al. 2017)")
    return p


def load(args):
    """(x_train, y_train, x_test, y_test): float32 images in [0, 1] (N x 28 x 28), int64 labels.

    A missing or damaged data set ends the program with one line saying what to do, exit status 2.
    """
    try:
        x_train, y_train, x_test, y_test = datasets.load(args.dataset, args.data_dir)
    except datasets.DataError as exc:
        print(f"{os.path.basename(sys.argv[0])}: error: {exc}", file=sys.stderr)
        sys.exit(2)
    if args.subset:
        x_train, y_train, x_test, y_test = (a[:args.subset] for a in (x_train, y_train, x_test, y_test))
    return (x_train.astype(np.float32) / 255.0, y_train, x_test.astype(np.float32) / 255.0, y_test)


def mean(pairs):
    """{name: (sum, count)} -> {name: sum / count}."""
    return {name: total / count for name, (total, count) in pairs.items()}


class MetricsLog:
    """One line per epoch on stdout and, with --metrics, the whole run so far in a JSON file.

    The file is rewritten atomically after every epoch, so a run stopped midway leaves valid metrics.
    In a Horovod job (after hk.init()) rank 0 alone prints and writes, and the run says how many ranks made it.
    """

    def __init__(self, args, framework, **config):
        job = current_job()
        ranks, write = (job.ctx.size, job.ctx.is_root) if job else (1, True)
        self.path = args.metrics if write else None
        self.write = write
        self.run = {"framework": framework, "dataset": args.dataset, "ranks": ranks, "batch_size": args.batch_size,
                    "global_batch_size": args.batch_size * ranks, "lr": args.lr, "seed": args.seed,
                    "subset": args.subset,
                    "warmup_epochs": getattr(args, "warmup_epochs", 0.0), **config, "epochs": []}

    def resume(self, start_epoch):
        """After a restart from a checkpoint: keep the file's rows for the epochs already done."""
        if start_epoch and self.path and os.path.exists(self.path):
            with open(self.path) as f:
                done = json.load(f).get("epochs", [])
            self.run["epochs"] = [r for r in done if r["epoch"] <= start_epoch]

    def add(self, epoch, **values):
        row = {"epoch": epoch + 1, **{k: float(v) for k, v in values.items()}}
        if hasattr(os, "getloadavg"):  # timings mean little on a busy machine: record how busy it was
            row["load_avg_1min"] = os.getloadavg()[0]
        self.run["epochs"] = [r for r in self.run["epochs"] if r["epoch"] < row["epoch"]] + [row]
        if not self.write:
            return
        print(f"epoch {row['epoch']:3d}  " + "  ".join(f"{k} {v:.4f}" for k, v in row.items() if k != "epoch"),
              flush=True)
        if self.path:
            write_json(self.path, self.run)
