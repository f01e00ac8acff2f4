"""Train the boundary-aware U-Net of chapter 4 with Horovod.

    horovodrun -np 4 python train.py --epochs 80 --data /scratch/mh/cells --out-dir runs/unet_w32 --width 32

Started as notebooks/04_unet.ipynb; the loop now lives in segthesis/trainer.py.
"""
import argparse
import os

import horovod.torch as hvd
import torch

from segthesis.callbacks import BestModelCheckpoint, CSVLogger, EarlyStopping
from segthesis.config import TrainConfig
from segthesis.data import make_loaders
from segthesis.model import SmallUNet
from segthesis.trainer import Trainer


def parse_args():
    defaults = TrainConfig()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, value in vars(defaults).items():
        p.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return TrainConfig(**vars(p.parse_args()))


def main():
    cfg = parse_args()
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    # laptop runs (no GPU): do not oversubscribe the cores
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))

    train_loader, val_loader = make_loaders(cfg, rank=hvd.rank(), world_size=hvd.size())
    model = SmallUNet(width=cfg.width)

    best = BestModelCheckpoint(os.path.join(cfg.out_dir, "best.pt"), monitor="val_loss")
    callbacks = [
        EarlyStopping(monitor="val_loss", patience=cfg.patience),
        best,
        CSVLogger(os.path.join(cfg.out_dir, "history.csv")),
    ]
    trainer = Trainer(model, cfg, callbacks=callbacks)
    trainer.fit(train_loader, val_loader)

    if trainer.is_chief:
        print(f"done: best val_loss {best.best:.4f} (epoch {best.best_epoch}), stopped after epoch {trainer.epoch}")


if __name__ == "__main__":
    main()
