"""
Multi-GPU pneumonia classifier with Horovod -- companion code for my blog post
"From one GPU to eight: scaling a chest X-ray model with Horovod".

    horovodrun -np 8 python train_hvd.py --data ./chest_xray/train
"""
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, random_split
from torch.utils.data.distributed import DistributedSampler
from torchvision import transforms

import horovod.torch as hvd


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="./chest_xray/train")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--val-split", type=float, default=0.15)
    return ap.parse_args()


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def make_model():
    m = torchvision.models.resnet18(weights=None, num_classes=2)
    m.conv1 = nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
    return m


def main():
    args = parse()
    hvd.init()
    # different seed per worker so that the augmentations are not identical on all GPUs
    seed_everything(args.seed + hvd.rank())
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = "cuda" if torch.cuda.is_available() else "cpu"

    tfm = transforms.Compose([
        transforms.Grayscale(),
        transforms.Resize((224, 224)),
        transforms.RandomRotation(10),
        transforms.ToTensor(),
        transforms.Normalize([0.5], [0.25]),
    ])
    full = torchvision.datasets.ImageFolder(args.data, transform=tfm)
    n_val = int(len(full) * args.val_split)
    train_ds, val_ds = random_split(full, [len(full) - n_val, n_val])

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_dl = DataLoader(train_ds, batch_size=args.bs, sampler=train_sampler, num_workers=4)
    val_dl = DataLoader(val_ds, batch_size=args.bs, sampler=val_sampler, num_workers=4)

    model = make_model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        start = time.time()
        for images, labels in train_dl:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad(set_to_none=True)  # a little faster than zeroing
            loss = criterion(model(images), labels)
            loss.backward()
            optimizer.step()

        model.eval()
        correct, seen = torch.tensor(0.0), torch.tensor(0.0)
        with torch.no_grad():
            for images, labels in val_dl:
                images, labels = images.to(device), labels.to(device)
                correct += (model(images).argmax(dim=1) == labels).sum().cpu()
                seen += labels.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
        seen = hvd.allreduce(seen, op=hvd.Sum, name="val_seen")
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}/{args.epochs}  val acc {100 * correct / seen:.2f}%  "
                  f"({time.time() - start:.1f}s)")
            torch.save(model.state_dict(), "pneumonia_resnet18.pt")


if __name__ == "__main__":
    main()
