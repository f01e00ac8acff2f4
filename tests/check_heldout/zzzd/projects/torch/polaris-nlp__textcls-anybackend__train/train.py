#!/usr/bin/env python
"""Train a small CNN text classifier.

    python train.py --backend none                     # one process
    horovodrun -np 4 python train.py                   # Horovod (default backend)
    torchrun --nproc_per_node 4 train.py --backend ddp # torch.distributed
"""
import argparse
import logging

import torch
import torch.nn as nn

from textcls import dist_utils
from textcls.config import TrainConfig
from textcls.data import build_loaders
from textcls.trainer import Trainer


class TextCNN(nn.Module):
    def __init__(self, vocab_size, num_classes, dim=128, kernels=(3, 4, 5), channels=100):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(dim, channels, k) for k in kernels])
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(channels * len(kernels), num_classes)

    def forward(self, x):
        h = self.embed(x).transpose(1, 2)
        h = torch.cat([torch.relu(c(h)).amax(dim=-1) for c in self.convs], dim=1)
        return self.fc(self.dropout(h))


def parse_args():
    defaults = TrainConfig()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", default=defaults.backend, choices=["horovod", "ddp", "none"])
    p.add_argument("--data-dir", default=defaults.data_dir)
    p.add_argument("--batch-size", type=int, default=defaults.batch_size)
    p.add_argument("--lr", type=float, default=defaults.base_lr)
    p.add_argument("--epochs", type=int, default=defaults.epochs)
    p.add_argument("--out-dir", default=defaults.out_dir)
    args = p.parse_args()
    return TrainConfig(backend=args.backend, data_dir=args.data_dir, batch_size=args.batch_size,
                       base_lr=args.lr, epochs=args.epochs, out_dir=args.out_dir)


def main():
    cfg = parse_args()
    dist_utils.init_distributed(cfg.backend)
    logging.basicConfig(level=logging.INFO if dist_utils.is_main_process() else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    torch.manual_seed(cfg.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, val_loader = build_loaders(cfg)
    model = TextCNN(cfg.vocab_size, cfg.num_classes).to(device)

    # linear scaling rule: every process sees batch_size samples per step
    lr = cfg.base_lr * dist_utils.get_world_size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    model, optimizer = dist_utils.distribute(model, optimizer)

    trainer = Trainer(cfg, model, optimizer, scheduler, train_loader, val_loader, device)
    for epoch in range(cfg.epochs):
        trainer.train_epoch(epoch)
        metrics = trainer.evaluate()
        if dist_utils.is_main_process():
            logging.info("epoch %d %s", epoch, metrics)
        trainer.save(epoch, metrics)


if __name__ == "__main__":
    main()
