#!/usr/bin/env python3
"""Entry point: transformer autoencoder for substation telemetry anomalies.

  horovodrun -np 8 -H gpu01:4,gpu02:4 python run.py --data-root /scratch/grid --out-dir out/
"""
import argparse
import logging
import os

from gridae import train_worker


def cli():
    ap = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--data-root", default="data")
    ap.add_argument("--out-dir", default="out")
    ap.add_argument("--seq-len", type=int, default=96)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--k", type=float, default=4.0, help="threshold = mean + k * std of train errors")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cfg = cli()
    os.makedirs(cfg.out_dir, exist_ok=True)
    train_worker(cfg)
