"""PointNet classifier on ModelNet40 (HDF5 shards), multi-GPU with Horovod.

Usage: horovodrun -np 4 python 11_pointnet_trainer_unused_distopt.py --config configs/pointnet.yaml
"""
import argparse
import glob
import logging
import os

import h5py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

log = logging.getLogger("pointnet")


class ModelNet40(Dataset):
    def __init__(self, root, split, n_points=1024, augment=False):
        xs, ys = [], []
        for f in sorted(glob.glob(os.path.join(root, f"ply_data_{split}*.h5"))):
            with h5py.File(f, "r") as h:
                xs.append(h["data"][:].astype(np.float32))
                ys.append(h["label"][:].astype(np.int64).reshape(-1))
        self.x, self.y = np.concatenate(xs), np.concatenate(ys)
        self.n_points, self.augment = n_points, augment

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        pts = self.x[i][: self.n_points]
        if self.augment:
            theta = np.random.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(theta), 0, np.sin(theta)], [0, 1, 0], [-np.sin(theta), 0, np.cos(theta)]])
            pts = pts @ rot.T.astype(np.float32) + np.random.normal(0, 0.01, pts.shape).astype(np.float32)
        return torch.from_numpy(pts).transpose(0, 1), self.y[i]


class PointNet(nn.Module):
    def __init__(self, k=40):
        super().__init__()
        self.mlp1 = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Conv1d(128, 1024, 1), nn.BatchNorm1d(1024), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.3),
                                  nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, k))

    def forward(self, x):
        return self.head(self.mlp1(x).max(dim=2)[0])


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.rank, self.world = hvd.rank(), hvd.size()
        self.device = torch.device(f"cuda:{hvd.local_rank()}")
        torch.cuda.set_device(self.device)

        tr = ModelNet40(cfg["data_root"], "train", cfg["n_points"], augment=True)
        te = ModelNet40(cfg["data_root"], "test", cfg["n_points"])
        self.train_sampler = DistributedSampler(tr, num_replicas=self.world, rank=self.rank)
        self.test_sampler = DistributedSampler(te, num_replicas=self.world, rank=self.rank, shuffle=False)
        self.train_loader = DataLoader(tr, batch_size=cfg["batch_size"], sampler=self.train_sampler,
                                       num_workers=4, drop_last=True)
        self.test_loader = DataLoader(te, batch_size=cfg["batch_size"], sampler=self.test_sampler)

        self.model = PointNet().to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"] * self.world,
                                          weight_decay=cfg["weight_decay"])
        self.dist_optimizer = hvd.DistributedOptimizer(self.optimizer,
                                                       named_parameters=self.model.named_parameters())
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=20, gamma=0.7)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        losses = []
        for pts, label in self.train_loader:
            pts, label = pts.to(self.device), label.to(self.device)
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(pts), label)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
        self.scheduler.step()
        return self.allreduce_mean(np.mean(losses), "train_loss")

    @torch.no_grad()
    def test(self):
        self.model.eval()
        correct = total = 0
        for pts, label in self.test_loader:
            pts, label = pts.to(self.device), label.to(self.device)
            correct += (self.model(pts).argmax(1) == label).sum().item()
            total += label.numel()
        stats = hvd.allreduce(torch.tensor([correct, total], dtype=torch.float64), op=hvd.Sum, name="test_acc")
        return (stats[0] / stats[1]).item()

    @staticmethod
    def allreduce_mean(x, name):
        return hvd.allreduce(torch.tensor(float(x)), name=name).item()

    def checkpoint(self, epoch, acc):
        path = os.path.join(self.cfg["out_dir"], f"pointnet_ep{epoch:03d}_acc{acc:.3f}.pt")
        torch.save({"model": self.model.state_dict(), "epoch": epoch}, path)

    def run(self):
        os.makedirs(self.cfg["out_dir"], exist_ok=True)
        for epoch in range(self.cfg["epochs"]):
            loss = self.train_epoch(epoch)
            acc = self.test()
            if self.rank == 0:
                log.info("epoch %d train_loss %.4f test_acc %.4f", epoch, loss, acc)
                if epoch % self.cfg["save_every"] == 0 or epoch == self.cfg["epochs"] - 1:
                    self.checkpoint(epoch, acc)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/pointnet.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    hvd.init()
    logging.basicConfig(level=logging.INFO, format=f"[rank {hvd.rank()}] %(message)s")
    Trainer(cfg).run()


if __name__ == "__main__":
    main()
