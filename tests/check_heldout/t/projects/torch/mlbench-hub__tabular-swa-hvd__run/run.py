"""Covertype (581k rows) ResMLP with LR finder + SWA.

Either launch the workers yourself:     horovodrun -np 4 python run.py
or let this script spawn them locally:  python run.py --num-proc 4
"""
import argparse
import dataclasses

import horovod

from tabkit import TrainConfig, train_fn


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--num-proc", type=int, default=0, help="spawn N local workers with horovod.run")
    for f in dataclasses.fields(TrainConfig):
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if f.type in (bool, "bool") else f.type
        if isinstance(kind, str):
            kind = {"int": int, "float": float, "str": str}[kind]
        p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=kind, default=f.default)
    args = vars(p.parse_args())
    num_proc = args.pop("num_proc")
    return num_proc, TrainConfig(**args)


if __name__ == "__main__":
    num_proc, cfg = parse()
    if num_proc > 0:
        results = horovod.run(train_fn, args=(cfg,), num_proc=num_proc, use_gloo=True)
        print("worker results:", results)
    else:
        train_fn(cfg)
