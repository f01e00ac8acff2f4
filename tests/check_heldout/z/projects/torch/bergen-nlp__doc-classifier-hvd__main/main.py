"""Entry point for the document classifier.

`python main.py --np 4` starts 4 local workers itself through horovod.run (gloo);
under horovodrun/mpirun (HOROVOD_RANK or OMPI_COMM_WORLD_RANK set) it just runs the worker function.
"""
import argparse
import json
import os

import horovod

from docclf import train_lib
from docclf.config import DEFAULTS


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None, help="json file overriding docclf/config.py DEFAULTS")
    p.add_argument("--np", type=int, default=2)
    a = p.parse_args()
    cfg = dict(DEFAULTS)
    if a.config:
        with open(a.config) as f:
            cfg.update(json.load(f))
    return a, cfg


if __name__ == "__main__":
    a, cfg = parse()
    if "HOROVOD_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ:
        train_lib.train(cfg)
    else:
        results = horovod.run(train_lib.train, args=(cfg,), np=a.np, use_gloo=True)
        print("dev macro-F1 from rank 0:", results[0])
