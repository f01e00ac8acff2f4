"""Launch a BALD active-learning experiment on N local workers.

    python run_al.py --config configs/bald_mlp.json --num-proc 4

No horovodrun needed, horovod.run spawns the workers (gloo).
"""
import argparse
import json
import os

import horovod

from bald.io_utils import load_config, write_table
from bald.worker import train_worker


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/bald_mlp.json")
    p.add_argument("--num-proc", type=int, default=2)
    p.add_argument("--hosts", default=None, help="e.g. gpu01:4,gpu02:4 (default: localhost)")
    p.add_argument("--out", default=None)
    p.add_argument("--acq", default=None, choices=[None, "bald", "max_entropy", "random"])
    return p.parse_args()


def main():
    args = parse_args()
    cfg = load_config(args.config)
    if args.out:
        cfg["out"] = args.out
    if args.acq:
        cfg["acquisition"] = args.acq
    os.makedirs(cfg["out"], exist_ok=True)
    with open(os.path.join(cfg["out"], "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)

    results = horovod.run(train_worker, args=(cfg,), num_proc=args.num_proc, hosts=args.hosts,
                          use_gloo=True)
    # every worker returns the same table, take rank 0's
    table = results[0]
    write_table(table, os.path.join(cfg["out"], "al_curve.csv"))
    for row in table:
        print("{round:>3d} {n_labeled:>6d} {acc:.4f} {nll:.4f}".format(**row))


if __name__ == "__main__":
    main()
