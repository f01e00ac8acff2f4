"""`intent-train` console script: read a JSON config, override a few keys, train.

    horovodrun -np 4 intent-train --config configs/atis.json
"""
import argparse
import json
from types import SimpleNamespace

from intent import trainer


def main(argv=None):
    ap = argparse.ArgumentParser(prog="intent-train")
    ap.add_argument("--config", default="configs/atis.json")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--out-dir")
    args = ap.parse_args(argv)
    with open(args.config) as f:
        cfg = json.load(f)
    for key in ("epochs", "lr", "out_dir"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    trainer.run(SimpleNamespace(**cfg))


if __name__ == "__main__":
    main()
