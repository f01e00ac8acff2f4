# -*- coding: utf-8 -*-
"""Temporal Segment Networks, two-stream (RGB + stacked optical flow), Horovod edition.

Usage:
    horovodrun -np 4 -H localhost:4 python main.py --segments 3 --epochs 80
"""
import argparse
import logging
import os
from dataclasses import dataclass, field
from typing import List

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

log = logging.getLogger("tsn")


@dataclass
class Config:
    num_classes: int = 51
    num_videos: int = 300
    segments: int = 3
    flow_stack: int = 5
    crop: int = 48
    batch_size: int = 16
    lr: float = 0.001
    momentum: float = 0.9
    weight_decay: float = 5e-4
    epochs: int = 80
    lr_steps: List[int] = field(default_factory=lambda: [30, 60])
    clip_grad: float = 20.0
    save_dir: str = "work_dirs/tsn_hmdb51"


class TSNVideos(Dataset):
    """Samples one snippet per segment; RGB frames and flow stacks are random stand-ins."""

    def __init__(self, cfg, split="train"):
        self.cfg, self.split = cfg, split
        self.n = cfg.num_videos if split == "train" else cfg.num_videos // 3

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        rs = np.random.RandomState(idx + (0 if self.split == "train" else 10 ** 6))
        c, k = self.cfg.crop, self.cfg.flow_stack
        rgb = rs.rand(self.cfg.segments, 3, c, c).astype(np.float32)
        flow = rs.rand(self.cfg.segments, 2 * k, c, c).astype(np.float32)
        return torch.from_numpy(rgb), torch.from_numpy(flow), idx % self.cfg.num_classes


def backbone(in_ch, width=32):
    return nn.Sequential(
        nn.Conv2d(in_ch, width, 5, 2, 2), nn.BatchNorm2d(width), nn.ReLU(True),
        nn.Conv2d(width, width * 2, 3, 2, 1), nn.BatchNorm2d(width * 2), nn.ReLU(True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten())


class TwoStreamTSN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.rgb = backbone(3)
        self.flow = backbone(2 * cfg.flow_stack)
        self.fc_rgb = nn.Linear(64, cfg.num_classes)
        self.fc_flow = nn.Linear(64, cfg.num_classes)

    def forward(self, rgb, flow):
        b, t = rgb.shape[:2]
        r = self.fc_rgb(self.rgb(rgb.flatten(0, 1))).view(b, t, -1).mean(1)   # segmental consensus
        f = self.fc_flow(self.flow(flow.flatten(0, 1))).view(b, t, -1).mean(1)
        return r + 1.5 * f


class Trainer:
    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = TwoStreamTSN(cfg).to(self.device)
        self.train_set = TSNVideos(cfg, "train")
        self.val_set = TSNVideos(cfg, "val")
        self.sampler = DistributedSampler(self.train_set, num_replicas=hvd.size(), rank=hvd.rank())
        self.loader = DataLoader(self.train_set, cfg.batch_size, sampler=self.sampler, drop_last=True)
        self.val_sampler = DistributedSampler(self.val_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                              shuffle=False)
        self.val_loader = DataLoader(self.val_set, cfg.batch_size, sampler=self.val_sampler)
        optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg.lr, momentum=cfg.momentum,
                                    weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(optimizer,
                                                  named_parameters=self.model.named_parameters())
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, cfg.lr_steps, 0.1)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, epoch):
        self.model.train()
        self.sampler.set_epoch(epoch)
        for step, (rgb, flow, y) in enumerate(self.loader):
            rgb, flow, y = rgb.to(self.device), flow.to(self.device), y.to(self.device)
            loss = F.cross_entropy(self.model(rgb, flow), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.synchronize()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_grad)
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
            if step % 10 == 0 and hvd.rank() == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        self.scheduler.step()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct = torch.zeros(2)
        for rgb, flow, y in self.val_loader:
            pred = self.model(rgb.to(self.device), flow.to(self.device)).argmax(1).cpu()
            correct += torch.tensor([(pred == y).sum().item(), y.numel()], dtype=torch.float32)
        correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
        return (correct[0] / correct[1]).item()

    def save(self, epoch):
        if hvd.rank() != 0:
            return
        os.makedirs(self.cfg.save_dir, exist_ok=True)
        torch.save({"epoch": epoch, "state_dict": self.model.state_dict()},
                   os.path.join(self.cfg.save_dir, "epoch_%d.pth" % epoch))

    def fit(self):
        for epoch in range(self.cfg.epochs):
            self.train_epoch(epoch)
            acc = self.validate()
            if hvd.rank() == 0:
                log.info("epoch %d val top1 %.4f", epoch, acc)
            if (epoch + 1) % 10 == 0:
                self.save(epoch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--segments", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.001)
    args = parser.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    cfg = Config(segments=args.segments, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr)
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
