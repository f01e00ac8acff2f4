#!/usr/bin/env python3
"""Keyword spotting (Speech Commands v2, 12 classes) with a small ResNet, Horovod data parallel."""
import argparse
import logging

import torch
import torch.nn as nn
import horovod.torch as hvd

from kws import Trainer
from kws.features import make_loaders

LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "_silence_", "_unknown_"]


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                                  nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return torch.relu(x + self.body(x))


def res8(n_classes, width=45):
    return nn.Sequential(nn.Conv2d(1, width, 3, padding=1, bias=False), nn.AvgPool2d((4, 3)),
                         ResBlock(width), ResBlock(width), ResBlock(width),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, n_classes))


def get_args():
    ap = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--data-root", default="data/speech_commands_logmel")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=100, help="per worker")
    ap.add_argument("--lr", type=float, default=0.05, help="lr for one worker")
    ap.add_argument("--fp16-allreduce", action="store_true")
    ap.add_argument("--out-dir", default="checkpoints/res8")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)
    device = "cpu"
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = "cuda"

    train_loader, val_loader, train_sampler = make_loaders(args.data_root, LABELS, args.batch_size)
    trainer = Trainer(res8(len(LABELS)), train_loader, val_loader, train_sampler,
                      lr=args.lr * hvd.size(), epochs=args.epochs, out_dir=args.out_dir,
                      fp16_allreduce=args.fp16_allreduce, device=device)
    best = trainer.fit()
    if hvd.rank() == 0:
        print("best val acc: %.4f" % best)


if __name__ == "__main__":
    main()
