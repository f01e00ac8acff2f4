#!/usr/bin/env python3
# PointNet classification on ModelNet40 (pre-sampled .npy point clouds), Horovod.
# usage: mpirun -np 8 python 05_pointnet_cls.py --data data/modelnet40_npy --resume
import argparse
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader, DistributedSampler
import horovod.torch as hvd


class ModelNetNpy(Dataset):
    def __init__(self, root, split, npoints=1024, augment=False):
        self.pts = np.load(os.path.join(root, f"{split}_points.npy"), mmap_mode="r")
        self.lbl = np.load(os.path.join(root, f"{split}_labels.npy"))
        self.npoints, self.augment = npoints, augment

    def __len__(self):
        return len(self.lbl)

    def __getitem__(self, i):
        p = np.array(self.pts[i, : self.npoints], dtype=np.float32)
        p = p - p.mean(0)
        p /= np.max(np.linalg.norm(p, axis=1))
        if self.augment:
            theta = np.random.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(theta), 0, np.sin(theta)], [0, 1, 0], [-np.sin(theta), 0, np.cos(theta)]], np.float32)
            p = p @ rot.T + np.random.normal(0, 0.01, p.shape).astype(np.float32)
        return torch.from_numpy(p).transpose(0, 1), int(self.lbl[i])


class PointNet(nn.Module):
    def __init__(self, k=40):
        super().__init__()
        self.feat = nn.Sequential(
            nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
            nn.Conv1d(128, 1024, 1), nn.BatchNorm1d(1024), nn.ReLU())
        self.cls = nn.Sequential(
            nn.Linear(1024, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.3),
            nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.3),
            nn.Linear(256, k))

    def forward(self, x):
        return self.cls(self.feat(x).max(dim=2)[0])


class Trainer:
    def __init__(self, args):
        self.args = args
        self.device = torch.device(f"cuda:{hvd.local_rank()}")
        torch.cuda.set_device(self.device)
        self.model = PointNet().to(self.device)
        base = torch.optim.Adam(self.model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-4)
        self.sched = torch.optim.lr_scheduler.StepLR(base, step_size=20, gamma=0.7)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(base, root_rank=0)
        self.opt = hvd.DistributedOptimizer(base, named_parameters=self.model.named_parameters())
        self.start_epoch = 0
        self.best = 0.0
        if args.resume and hvd.rank() == 0 and os.path.exists(args.ckpt):
            ck = torch.load(args.ckpt, map_location=self.device)
            self.model.load_state_dict(ck["model"])
            self.opt.load_state_dict(ck["opt"])
            self.best = ck["best"]
            print(f"resumed from {args.ckpt} (epoch {ck['epoch']})")
        self.start_epoch = hvd.broadcast_object(0 if not args.resume else self._ck_epoch(), root_rank=0, name="start")

    def _ck_epoch(self):
        if hvd.rank() == 0 and os.path.exists(self.args.ckpt):
            return torch.load(self.args.ckpt, map_location="cpu")["epoch"] + 1
        return 0

    def loaders(self):
        tr = ModelNetNpy(self.args.data, "train", augment=True)
        te = ModelNetNpy(self.args.data, "test")
        self.train_sampler = DistributedSampler(tr, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
        test_sampler = DistributedSampler(te, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.train_dl = DataLoader(tr, batch_size=self.args.bs, sampler=self.train_sampler, num_workers=4, drop_last=True)
        self.test_dl = DataLoader(te, batch_size=64, sampler=test_sampler, num_workers=4)

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        losses = []
        for pts, y in self.train_dl:
            pts, y = pts.to(self.device), y.to(self.device)
            self.opt.zero_grad()
            loss = F.cross_entropy(self.model(pts), y, label_smoothing=0.2)
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return hvd.allreduce(torch.tensor(np.mean(losses)), name="epoch_loss").item()

    @torch.no_grad()
    def test(self):
        self.model.eval()
        correct = total = 0
        for pts, y in self.test_dl:
            pred = self.model(pts.to(self.device)).argmax(1).cpu()
            correct += (pred == y).sum().item()
            total += y.numel()
        return correct / total

    def fit(self):
        self.loaders()
        for epoch in range(self.start_epoch, self.args.epochs):
            loss = self.train_epoch(epoch)
            self.sched.step()
            acc = self.test()
            if hvd.rank() == 0:
                print(f"[{epoch}] loss={loss:.4f} test_acc={acc:.4f} best={self.best:.4f}")
                if acc > self.best:
                    self.best = acc
                    torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                                "epoch": epoch, "best": self.best}, self.args.ckpt)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/modelnet40_npy")
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--ckpt", default="pointnet_best.pth")
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    hvd.init()
    Trainer(args).fit()
