import argparse
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CFG = os.path.join(HERE, "..", "configs", "ppi.json")


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=DEFAULT_CFG)
    p.add_argument("--data", default="data/ppi", help="folder of train/valid/test npz; fake graphs if missing")
    p.add_argument("--hidden", type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--epochs", type=int)
    p.add_argument("--warmup-epochs", type=int)
    p.add_argument("--batch-graphs", type=int)
    p.add_argument("--ckpt-dir")
    p.add_argument("--save-every", type=int)
    p.add_argument("--seed", type=int, default=3)
    args = p.parse_args(argv)
    with open(args.config) as f:
        cfg = json.load(f)
    for k, v in cfg.items():
        if getattr(args, k, None) is None:
            setattr(args, k, v)
    return args
