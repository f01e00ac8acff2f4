#!/usr/bin/env python
"""Launch the surrogate training.

  python run.py --np 4                      # spawns 4 local workers with horovod.run
  python run.py --np 8 --hosts a:4,b:4      # two machines
  horovodrun -np 4 python run.py --in-place # already inside a Horovod job
"""
import argparse
import json
import sys

from surrogate import trainer

DEFAULTS = dict(table="data/polars.csv", batch_size=128, lr=5e-4, epochs=60, width=256, depth=4,
                ckpt_dir="ckpt/surrogate")


def parse(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--hosts", default=None)
    ap.add_argument("--in-place", action="store_true", help="do not spawn, run this process as a worker")
    ap.add_argument("--config", help="json overrides for DEFAULTS")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    return ap.parse_args(argv)


def build_config(args):
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    for item in args.set:
        key, value = item.split("=", 1)
        cfg[key] = type(DEFAULTS[key])(value) if key in DEFAULTS else value
    return cfg


def main(argv=None):
    args = parse(argv if argv is not None else sys.argv[1:])
    cfg = build_config(args)
    if args.in_place:
        trainer.main(cfg)
        return
    import horovod
    histories = horovod.run(trainer.main, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("val MAE per epoch (rank 0):", histories[0])


if __name__ == "__main__":
    main()
