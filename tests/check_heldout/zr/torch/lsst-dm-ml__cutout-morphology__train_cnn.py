"""
Galaxy morphology classifier on HSC/LSST-like image cutouts (g, r, i bands, 64x64).

Data: one HDF5-converted npz per tract, arrays `cutouts` (N, 3, 64, 64) and `label`
(0 = elliptical, 1 = spiral, 2 = edge-on, 3 = merger/irregular).

Usage: horovodrun -np 4 python train_cnn.py --tracts data/tracts --epochs 15
"""
import argparse
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

CLASSES = ["elliptical", "spiral", "edge-on", "irregular"]


def load_tracts(pattern):
    xs, ys = [], []
    for f in sorted(glob.glob(pattern)):
        d = np.load(f)
        xs.append(d["cutouts"].astype(np.float32))
        ys.append(d["label"].astype(np.int64))
    x = np.concatenate(xs)
    # asinh stretch per band, as in the survey quick-look images
    x = np.arcsinh(x / 0.1) / 3.0
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(np.concatenate(ys)))


class MorphNet(nn.Module):
    def __init__(self, n_classes=4):
        super(MorphNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, 5, padding=2)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1)
        self.bn1, self.bn2, self.bn3 = nn.BatchNorm2d(32), nn.BatchNorm2d(64), nn.BatchNorm2d(128)
        self.fc1 = nn.Linear(128 * 8 * 8, 256)
        self.fc2 = nn.Linear(256, n_classes)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.max_pool2d(F.relu(self.bn3(self.conv3(x))), 2)
        x = self.drop(F.relu(self.fc1(torch.flatten(x, 1))))
        return self.fc2(x)


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


parser = argparse.ArgumentParser()
parser.add_argument("--tracts", default="data/tracts")
parser.add_argument("--epochs", type=int, default=15)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--label-smoothing", type=float, default=0.05)
parser.add_argument("--save-dir", default="checkpoints")
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()

hvd.init()
device = torch.device("cuda" if torch.cuda.is_available() and not args.no_cuda else "cpu")
torch.manual_seed(42)

train_set = load_tracts(os.path.join(args.tracts, "train_*.npz"))
test_set = load_tracts(os.path.join(args.tracts, "test_*.npz"))
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler)

model = MorphNet().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = criterion(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % 50 == 0 and hvd.rank() == 0:
            print("Train Epoch: {} [{}/{}]\tLoss: {:.5f}\t{:.1f}s".format(
                epoch, batch_idx * len(data), len(train_sampler), loss.item(), time.time() - t0))


def test():
    model.eval()
    test_loss, correct = 0.0, 0.0
    per_class = torch.zeros(len(CLASSES), 2)
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.cross_entropy(output, target, reduction="sum").item()
            pred = output.argmax(dim=1)
            correct += pred.eq(target).sum().item()
            for c in range(len(CLASSES)):
                sel = target == c
                per_class[c, 0] += (pred[sel] == c).sum().item()
                per_class[c, 1] += sel.sum().item()
    test_loss = metric_average(test_loss / len(test_sampler), "avg_loss")
    test_acc = metric_average(correct / len(test_sampler), "avg_accuracy")
    per_class = hvd.allreduce(per_class, op=hvd.Sum, name="per_class")
    if hvd.rank() == 0:
        print(f"\nTest set: loss {test_loss:.4f}, accuracy {100 * test_acc:.2f}%")
        for c, name in enumerate(CLASSES):
            print(f"   {name:>10s}: recall {per_class[c, 0] / max(per_class[c, 1], 1):.3f}")
    return test_acc


best = 0.0
for epoch in range(1, args.epochs + 1):
    train(epoch)
    acc = test()
    if hvd.rank() == 0 and acc > best:
        best = acc
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": model.state_dict(), "acc": acc},
                   os.path.join(args.save_dir, "morphnet_best.pt"))
