"""Product-image classifier, PyTorch version of the visionkit TF pipeline.

Reads the same data as the TF job, exported to .npz shards (uint8 HWC images + int labels):
    horovodrun -np 8 -H node1:4,node2:4 python train.py --data /mnt/datasets/products-v3/npz
"""
import argparse
import glob
import os

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class NpzShards(Dataset):
    def __init__(self, pattern, train):
        imgs, labels = [], []
        for f in sorted(glob.glob(pattern)):
            z = np.load(f)
            imgs.append(z["images"])
            labels.append(z["labels"])
        self.images = np.concatenate(imgs)
        self.labels = np.concatenate(labels).astype(np.int64)
        self.train = train

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i]).permute(2, 0, 1).float().div_(255.0)
        if self.train and torch.rand(()) < 0.5:
            x = x.flip(-1)
        return x, self.labels[i]


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.MaxPool2d(2))


class SmallResNetish(nn.Module):
    def __init__(self, num_classes, widths=(32, 64, 128)):
        super().__init__()
        chans = (3,) + tuple(widths)
        self.features = nn.Sequential(*[conv_bn(a, b) for a, b in zip(chans[:-1], chans[1:])])
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(widths[-1], num_classes))

    def forward(self, x):
        return self.classifier(F.adaptive_avg_pool2d(self.features(x), 1).flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/mnt/datasets/products-v3/npz")
    ap.add_argument("--out", default="/mnt/runs/products-v3-torch")
    ap.add_argument("--num-classes", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.05)
    args = ap.parse_args()

    hvd.init()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")

    train_set = NpzShards(os.path.join(args.data, "train-*.npz"), train=True)
    val_set = NpzShards(os.path.join(args.data, "validation-*.npz"), train=False)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=4,
                              drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler, num_workers=4)

    model = SmallResNetish(args.num_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9,
                                nesterov=True, weight_decay=5e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.MultiStepLR(
        optimizer, milestones=[int(0.5 * args.epochs), int(0.75 * args.epochs)], gamma=0.1)

    hvd.broadcast_parameters(model.parameters(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            if step % 100 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        scheduler.step()

        model.eval()
        correct = torch.zeros(()); seen = torch.zeros(())
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x.to(device)).argmax(1).cpu()
                correct += (pred == y).sum()
                seen += y.numel()
        acc = hvd.allreduce(correct, op=hvd.Sum) / hvd.allreduce(seen, op=hvd.Sum)
        if hvd.rank() == 0:
            print(f"epoch {epoch} val_acc {acc.item():.4f}")
            os.makedirs(args.out, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       os.path.join(args.out, "last.pt"))


if __name__ == "__main__":
    main()
