"""
Enhancer activity classifier (DeepSTARR-like CNN on one-hot DNA, 249 bp).
Ported from our torch.distributed (NCCL) version to Horovod so it runs with the cluster's MPI stack.

Usage (LSF):
    bsub -n 8 -gpu "num=4" mpirun python train_hvd.py --data /seq/regulatory/starr_k562 --epochs 20
Input: {train,valid}_seqs.npy (N, 4, 249) uint8 one-hot, {train,valid}_labels.npy (N,) int64
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.002)
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--log-interval", type=int, default=50)
parser.add_argument("--save", default="enhancer_cnn.pt")
args = parser.parse_args()


class EnhancerCNN(nn.Module):
    def __init__(self, n_filters=256, n_classes=2, dropout=0.4):
        super().__init__()
        self.conv1 = nn.Conv1d(4, n_filters, 7, padding=3)
        self.bn1 = nn.BatchNorm1d(n_filters)
        self.conv2 = nn.Conv1d(n_filters, 60, 3, padding=1)
        self.bn2 = nn.BatchNorm1d(60)
        self.conv3 = nn.Conv1d(60, 60, 5, padding=2)
        self.bn3 = nn.BatchNorm1d(60)
        self.fc1 = nn.Linear(60 * 31, 256)
        self.fc2 = nn.Linear(256, n_classes)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool1d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.max_pool1d(F.relu(self.bn3(self.conv3(x))), 2)
        x = self.drop(F.relu(self.fc1(x.flatten(1))))
        return self.fc2(x)


def load_split(data_dir, split):
    x = np.load(os.path.join(data_dir, f"{split}_seqs.npy")).astype(np.float32)
    y = np.load(os.path.join(data_dir, f"{split}_labels.npy")).astype(np.int64)
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


def metric_average(val, name):
    # was: dist.all_reduce(t); t /= world_size
    avg = hvd.allreduce(val, name=name)
    return float(avg)


def train(model, loader, sampler, optimizer, epoch, device, log_interval, rank):
    model.train()
    sampler.set_epoch(epoch)
    running = 0.0
    for batch_idx, (seq, target) in enumerate(loader):
        seq, target = seq.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(seq), target)
        loss.backward()
        optimizer.step()
        running += loss.item()
        if batch_idx % log_interval == 0:
            avg_loss = metric_average(running / (batch_idx + 1), "train_loss")
            if rank == 0:
                print(f"epoch {epoch} [{batch_idx}/{len(loader)}] loss {avg_loss:.4f}", flush=True)


def validate(model, loader, device):
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with torch.no_grad():
        for seq, target in loader:
            seq, target = seq.to(device), target.to(device)
            out = model(seq)
            total_loss += F.cross_entropy(out, target, reduction="sum").item()
            correct += (out.argmax(1) == target).sum().item()
            seen += target.numel()
    return total_loss / seen, correct / seen


def main():
    hvd.init()
    rank, world = hvd.rank(), hvd.size()
    torch.manual_seed(args.seed + rank)  # different dropout masks / shuffles per worker
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    train_ds = load_split(args.data, "train")
    valid_ds = load_split(args.data, "valid")
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
    valid_loader = DataLoader(valid_ds, batch_size=256, sampler=valid_sampler)

    model = EnhancerCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * world)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best = 0.0
    for epoch in range(args.epochs):
        t0 = time.time()
        train(model, train_loader, train_sampler, optimizer, epoch, device, args.log_interval, rank)
        val_loss, val_acc = validate(model, valid_loader, device)
        val_loss = metric_average(val_loss, "val_loss")
        val_acc = metric_average(val_acc, "val_acc")
        if rank == 0:
            print(f"epoch {epoch}: val loss {val_loss:.4f} acc {val_acc:.4f} ({time.time() - t0:.0f}s)")
            if val_acc > best:
                best = val_acc
                torch.save(model.state_dict(), args.save)


if __name__ == "__main__":
    main()
