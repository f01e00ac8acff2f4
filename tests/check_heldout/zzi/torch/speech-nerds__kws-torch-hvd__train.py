"""Keyword spotting (12 commands) on 40-bin MFCC frames, small depthwise-separable CNN.

Feature cache: <root>/<split>_x.npy (N, 1, 40, 101) float16, <root>/<split>_y.npy (N,) int64

    horovodrun -np 4 python train.py --root /data/speech_commands_mfcc --epochs 30
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=str, default="/data/speech_commands_mfcc")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--warmup", type=int, default=2, help="linear warmup epochs")
    parser.add_argument("--label-smoothing", type=float, default=0.1)
    parser.add_argument("--save-dir", type=str, default="./ckpt")
    parser.add_argument("--local_rank", type=int, default=0)   # kept for torch.distributed.launch
    parser.add_argument("--fp16-allreduce", action="store_true")
    return parser.parse_args()


class DSConv(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.bn1, self.bn2 = nn.BatchNorm2d(cin), nn.BatchNorm2d(cout)

    def forward(self, x):
        x = F.relu(self.bn1(self.dw(x)))
        return F.relu(self.bn2(self.pw(x)))


class KWSNet(nn.Module):
    def __init__(self, n_classes=12, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, (10, 4), (2, 2), (5, 1), bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = nn.Sequential(*[DSConv(width, width) for _ in range(4)])
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def loaders(args):
    def ds(split):
        x = torch.from_numpy(np.load(os.path.join(args.root, f"{split}_x.npy")).astype(np.float32))
        y = torch.from_numpy(np.load(os.path.join(args.root, f"{split}_y.npy")))
        return TensorDataset(x, y)

    train_set, test_set = ds("train"), ds("test")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=2, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler)
    return train_loader, test_loader, train_sampler


def test(model, loader, device):
    model.eval()
    correct = torch.zeros(1)
    total = torch.zeros(1)
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device)).argmax(1).cpu()
            correct += (pred == y).sum()
            total += y.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name="correct")
    total = hvd.allreduce(total, op=hvd.Sum, name="total")
    return (correct / total).item()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(42)
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
        torch.cuda.manual_seed(42)

    train_loader, test_loader, train_sampler = loaders(args)
    model = KWSNet().to(device)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True,
                                weight_decay=1e-4)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda e: min(1.0, (e + 1) / args.warmup_epochs) * 0.97 ** e)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        tic = time.time()
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if step % 100 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step}/{len(train_loader)} loss {loss.item():.4f}")
        scheduler.step()
        acc = test(model, test_loader, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch} done in {time.time() - tic:.0f}s, test acc {acc:.4f}")

        if args.local_rank == 0:
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.save_dir, "last.pth"))
            if acc > best:
                best = acc
                torch.save(model.state_dict(), os.path.join(args.save_dir, "best.pth"))


if __name__ == "__main__":
    main()
