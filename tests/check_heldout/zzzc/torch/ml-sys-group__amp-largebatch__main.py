#!/usr/bin/env python3
"""Mixed-precision large-batch baseline. Config is JSON; CLI flags override it.

    horovodrun -np 8 -H host1:4,host2:4 python main.py --config configs/adamw_8k.json
"""
import argparse
import json
import logging
import os
import sys

from amplb.config import Config
from amplb.trainer import Trainer


def cli(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--optimizer", default=None)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--no-amp", action="store_true")
    a = ap.parse_args(argv)
    cfg = Config.from_json(a.config) if a.config else Config()
    for k in ("optimizer", "lr", "epochs"):
        if getattr(a, k) is not None:
            setattr(cfg, k, getattr(a, k))
    if a.no_amp:
        cfg.amp = False
    return cfg


def main(argv=None):
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s",
                        stream=sys.stdout)
    cfg = cli(argv)
    trainer = Trainer(cfg)
    best = trainer.fit()
    if trainer.ctx.is_main:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        with open(os.path.join(cfg.ckpt_dir, "summary.json"), "w") as f:
            json.dump({"best_val_acc": best, **cfg.to_dict()}, f, indent=2)


if __name__ == "__main__":
    main()
