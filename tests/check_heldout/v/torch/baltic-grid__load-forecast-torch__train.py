"""Day-ahead load forecaster (PyTorch).  horovodrun -np 4 python train.py [--epochs 30]"""
import argparse
import dataclasses

import torch

from loadfc import dist
from loadfc.config import Config
from loadfc.data import build_loaders
from loadfc.model import TCNForecaster
from loadfc.trainer import Trainer


def main():
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        ap.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    cfg = Config(**vars(ap.parse_args()))

    device = dist.setup()
    rank, size = dist.world()
    torch.manual_seed(cfg.seed)

    train_loader, val_loader = build_loaders(cfg, rank, size)
    model = TCNForecaster(cfg.horizon).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)

    Trainer(cfg, model, optimizer, train_loader, val_loader, device).fit()


if __name__ == "__main__":
    main()
