"""Launch SASRec training on the local GPUs (or a host list) without horovodrun.

    python launch.py configs/sasrec_beauty.json [--hosts gpu01:4,gpu02:4]
"""
import argparse
import json

import horovod

from seqrec.train_lib import train_worker


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("--hosts", default=None)
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    results = horovod.run(train_worker, args=(cfg,), np=cfg["num_proc"], hosts=args.hosts, use_gloo=True)
    print("final HR@10 per worker:", results)


if __name__ == "__main__":
    main()
