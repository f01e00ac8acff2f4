#!/usr/bin/env python
"""Start UNet training on several GPUs/hosts from Python, no horovodrun wrapper script needed.

    python launch.py --np 8 --hosts node01:4,node02:4 --config configs/landcover.json
"""
import argparse
import json
import logging

import horovod

from segtrain import train_worker
from segtrain.config import load_config

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--np", type=int, default=1, help="total number of worker processes")
    ap.add_argument("--hosts", default=None, help="host1:slots,host2:slots (default: localhost)")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--use-mpi", action="store_true")
    args = ap.parse_args()

    cfg = load_config(args.config, epochs=args.epochs, lr=args.lr)
    logging.info("config: %s", json.dumps(cfg.__dict__))

    results = horovod.run(train_worker, args=(cfg,), np=args.np, hosts=args.hosts,
                          use_gloo=not args.use_mpi, use_mpi=args.use_mpi, verbose=1)
    logging.info("final mIoU per rank: %s", results)


if __name__ == "__main__":
    main()
