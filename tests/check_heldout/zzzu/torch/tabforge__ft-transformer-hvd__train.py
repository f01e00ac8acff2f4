#!/usr/bin/env python
# FT-Transformer on tabular CSVs, multi-GPU via horovod
#   horovodrun -np 4 python train.py --config configs/adult.yaml
import argparse
import os

import pandas as pd
import torch
import horovod.torch as hvd

from ftt import FTTransformer, build_loaders
from ftt.config import load_config
from ftt.dist import setup, log
from ftt.trainer import Trainer


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/adult.yaml")
    p.add_argument("--csv", default=None, help="overrides data.csv")
    p.add_argument("--set", nargs="*", default=[], help="key=value overrides, e.g. train.lr=3e-4")
    p.add_argument("--fp16-allreduce", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    cfg = load_config(args.config, args.set)
    if args.csv:
        cfg["data"]["csv"] = args.csv

    device = setup()
    torch.manual_seed(cfg["data"]["seed"])

    df = pd.read_csv(cfg["data"]["csv"])
    train_loader, valid_loader, prep = build_loaders(df, cfg, hvd.rank(), hvd.size())
    log(f"workers={hvd.size()} train/worker={len(train_loader.dataset)} features={len(prep.numeric)}+{len(prep.categorical)}")

    mcfg = cfg["model"]
    model = FTTransformer(len(prep.numeric), prep.cardinalities(), mcfg["d_token"], mcfg["n_blocks"],
                          mcfg["n_heads"], mcfg["dropout"]).to(device)

    # linear scaling rule
    lr = cfg["train"]["lr"] * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg["train"]["weight_decay"])

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    trainer = Trainer(model, optimizer, train_loader, valid_loader, cfg, device)
    best = trainer.fit()
    log("best valid auc", best)


if __name__ == "__main__":
    main()
