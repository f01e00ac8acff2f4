#!/usr/bin/env python
"""Cluster entry point for KWS training (the package is pip-installed in the job image).

    horovodrun -np 4 python scripts/train.py --workdir /experiments/kws/$RUN_ID --epochs 40
"""
import os
import sys

from kws.config import Config
from kws.train_lib import run

if __name__ == "__main__":
    cfg = Config.from_args(sys.argv[1:])
    os.makedirs(cfg.workdir, exist_ok=True)
    run(cfg)
