"""Action recognition on pre-extracted video clips (UCF101-style) with a small 3D CNN.

Converted from my single-GPU script for the cluster. Launch with
    horovodrun -np 8 -H node1:4,node2:4 python 01_video_action_r3d.py --root /scratch/ucf101_clips
"""
import argparse
import csv
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/scratch/ucf101_clips")
    p.add_argument("--frames", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="checkpoints/r3d")
    return p.parse_args()


class ClipDataset(Dataset):
    """Each row of split.csv: relative path of a (T, H, W, 3) uint8 .npy clip, label."""

    def __init__(self, root, split, frames, train=True):
        self.root = root
        self.frames = frames
        self.train = train
        with open(os.path.join(root, f"{split}.csv")) as f:
            self.items = [(r[0], int(r[1])) for r in csv.reader(f)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        clip = np.load(os.path.join(self.root, path), mmap_mode="r")
        T = clip.shape[0]
        if self.train:
            start = np.random.randint(0, max(1, T - self.frames))
        else:
            start = max(0, (T - self.frames) // 2)
        clip = np.asarray(clip[start:start + self.frames], dtype=np.float32) / 255.0
        if clip.shape[0] < self.frames:  # loop short videos
            reps = int(np.ceil(self.frames / clip.shape[0]))
            clip = np.concatenate([clip] * reps, axis=0)[: self.frames]
        if self.train and np.random.rand() < 0.5:
            clip = clip[:, :, ::-1].copy()
        x = torch.from_numpy(clip).permute(3, 0, 1, 2)  # C, T, H, W
        return x, label


def conv_bn(cin, cout, stride):
    return nn.Sequential(
        nn.Conv3d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm3d(cout),
        nn.ReLU(inplace=True),
    )


class Small3DNet(nn.Module):
    def __init__(self, num_classes=101):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 32, (1, 2, 2)),
            conv_bn(32, 64, 2),
            conv_bn(64, 128, 2),
            conv_bn(128, 256, 2),
            nn.AdaptiveAvgPool3d(1),
        )
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(256, num_classes)

    def forward(self, x):
        return self.fc(self.drop(self.features(x).flatten(1)))


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(1234)

    # one GPU per process
    torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda")

    train_set = ClipDataset(args.root, "trainlist01", args.frames, train=True)
    val_set = ClipDataset(args.root, "testlist01", args.frames, train=False)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                            num_workers=args.workers, pin_memory=True)

    model = Small3DNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(),
                                momentum=0.9, weight_decay=args.wd, nesterov=True)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[15, 25], gamma=0.1)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        print(f"{hvd.size()} workers, {len(train_set)} train clips, {len(val_set)} val clips")

    best_acc = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        run_loss, n_seen = 0.0, 0
        for it, (x, y) in enumerate(train_loader):
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            run_loss += loss.item() * x.size(0)
            n_seen += x.size(0)
            if it % 50 == 0 and hvd.rank() == 0:
                print(f"ep {epoch} it {it}/{len(train_loader)} loss {loss.item():.4f}")
        scheduler.step()

        train_loss = hvd.allreduce(torch.tensor(run_loss / max(n_seen, 1)), name="train_loss").item()

        model.eval()
        correct = torch.zeros(1, device=device)
        total = torch.zeros(1, device=device)
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                pred = model(x).argmax(1)
                correct += (pred == y).sum()
                total += y.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
        total = hvd.allreduce(total, op=hvd.Sum, name="val_total")
        acc = (correct / total).item()

        if hvd.rank() == 0:
            print(f"epoch {epoch}: train_loss {train_loss:.4f} val_acc {acc:.4f} "
                  f"({time.time() - t0:.0f}s)")
            state = {"epoch": epoch, "model": model.state_dict(), "acc": acc}
            torch.save(state, os.path.join(args.out, "last.pt"))
            if acc > best_acc:
                best_acc = acc
                torch.save(state, os.path.join(args.out, "best.pt"))


if __name__ == "__main__":
    main()
