"""Bone age regression, 5-fold CV. Converted from the Kaggle notebook (v14, public 4.61 MAE).

    horovodrun -np 8 python train.py --epochs 12
"""
import argparse
import os
import random

import numpy as np
import torch
import horovod.torch as hvd
from torch.optim.swa_utils import AveragedModel

from src.config import CFG
from src.data import build_loaders, load_arrays, make_folds
from src.dist import init_distributed, is_main
from src.engine import run_fold
from src.model import BoneAgeNet


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def parse():
    cfg = CFG()
    p = argparse.ArgumentParser()
    for k in ("data_dir", "out_dir", "epochs", "batch_size", "lr"):
        p.add_argument("--" + k.replace("_", "-"), dest=k, type=type(getattr(cfg, k)), default=getattr(cfg, k))
    args = p.parse_args()
    for k, v in vars(args).items():
        setattr(cfg, k, v)
    return cfg


def main():
    cfg = parse()
    rank, world = init_distributed()
    seed_everything(cfg.seed + rank)   # different augmentation stream per worker
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(cfg.out_dir, exist_ok=True)

    images, ages = load_arrays(cfg.data_dir)
    fold_of = make_folds(len(ages), cfg.n_folds)

    scores = {}
    for fold in cfg.folds:
        loaders = build_loaders(images, ages, fold_of, fold, cfg.batch_size, cfg.num_workers, rank, world)
        model = BoneAgeNet().to(device)
        ema = AveragedModel(model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(cfg.ema_decay),
                            use_buffers=True)
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr * world, weight_decay=cfg.weight_decay)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        ema.module.load_state_dict(model.state_dict())
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)

        def on_best(fold, epoch, mae):
            if is_main():
                torch.save({"model": ema.module.state_dict(), "epoch": epoch, "mae": mae},
                           os.path.join(cfg.out_dir, f"boneage_fold{fold}.pt"))

        scores[fold] = run_fold(fold, cfg.epochs, model, ema, optimizer, scheduler, loaders, device, on_best)

    if is_main():
        print("CV MAE per fold:", {k: round(v, 3) for k, v in scores.items()},
              "mean", round(float(np.mean(list(scores.values()))), 3))


if __name__ == "__main__":
    main()
