#!/usr/bin/env python
"""Train conformer-lite with Horovod.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py --config configs/base.yaml \
        data.manifest_dir=/corpora/librispeech/manifests
"""
import argparse

import torch
import horovod.torch as hvd

from asr.config import load_config
from asr.data import build_loader
from asr.dist import pin_device
from asr.trainer import Trainer


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/base.yaml")
    p.add_argument("overrides", nargs="*", help="dotted key=value overrides")
    return p.parse_args()


def main():
    args = parse_args()
    cfg = load_config(args.config, args.overrides)
    hvd.init()
    device = pin_device()
    torch.manual_seed(1234)

    train_loader, train_sampler = build_loader(cfg, "train", hvd.size(), hvd.rank())
    valid_loader, _ = build_loader(cfg, "valid", hvd.size(), hvd.rank())

    trainer = Trainer(cfg, device)
    best = trainer.fit(train_loader, train_sampler, valid_loader)
    if hvd.rank() == 0:
        print(f"done: best valid ctc {best:.4f}")


if __name__ == "__main__":
    main()
