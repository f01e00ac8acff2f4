#!/usr/bin/env python
# CommonLit Readability - course project (group 7). Bag-of-words baseline trained
# with Horovod on the department cluster:  horovodrun -np 4 python run_train.py --fold 0
import argparse
import dataclasses
import random

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler

from clrp import TrainConfig
from clrp.data import ExcerptDataset, collate, load_fold
from clrp.model import BowRegressor
from clrp.trainer import Trainer


def parse_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainConfig):
        if f.type in (int, float, str):
            parser.add_argument("--" + f.name.replace("_", "-"), type=f.type, default=None)
    parser.add_argument("--resume", default=None)
    args = parser.parse_args()
    overrides = {k: v for k, v in vars(args).items() if v is not None and k != "resume"}
    return TrainConfig(**overrides), args.resume


def main():
    cfg, resume = parse_config()
    hvd.init()
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    random.seed(cfg.seed)
    np.random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)

    train_rows, valid_rows = load_fold(cfg.train_csv, cfg.fold)
    train_ds, valid_ds = ExcerptDataset(train_rows, cfg), ExcerptDataset(valid_rows, cfg)
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=cfg.seed)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=sampler,
                              collate_fn=collate, drop_last=True)
    valid_part = Subset(valid_ds, list(range(hvd.rank(), len(valid_ds), hvd.size())))
    valid_loader = DataLoader(valid_part, batch_size=64, collate_fn=collate)

    model = BowRegressor(cfg).to(device)
    if resume:
        state = torch.load(resume, map_location="cpu")
        model.load_state_dict(state["model"])
    trainer = Trainer(model, cfg, train_loader, valid_loader, device, sampler=sampler)
    trainer.sync()

    def log(msg):
        if hvd.rank() == 0:
            print(msg, flush=True)

    log(f"world={hvd.size()} train={len(train_ds)} valid={len(valid_ds)} cfg={cfg}")
    best = trainer.fit(log=log)
    log(f"best val rmse {best:.4f}")


if __name__ == "__main__":
    main()
