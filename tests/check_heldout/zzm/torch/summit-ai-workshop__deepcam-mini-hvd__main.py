# DeepCAM-mini: climate segmentation (tropical cyclones / atmospheric rivers) with Horovod.
# Grew out of the OLCF Summit AI workshop exercise 3 ("scale it out"); our data module replaced
# the synthetic one in March.
import argparse
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from models import TinyDeepLab
from utils.ckpt import save_checkpoint
from utils.dist import setup_horovod, reduce_mean
from utils.logger import get_logger

parser = argparse.ArgumentParser()
parser.add_argument("--data-dir", default="/gpfs/alpine/proj-shared/deepcam-mini")
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=4)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--class-weights", type=float, nargs=3, default=[0.1, 2.0, 1.5])
parser.add_argument("--ckpt-dir", default="./ckpt")
parser.add_argument("--seed", type=int, default=333)
args = parser.parse_args()


class ClimateTiles(Dataset):
    def __init__(self, folder):
        self.data = sorted(glob.glob(os.path.join(folder, "data-*.npy")))
        self.labels = [p.replace("data-", "label-") for p in self.data]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = np.load(self.data[i]).astype(np.float32)
        y = np.load(self.labels[i]).astype(np.int64)
        x = (x - x.mean(axis=(1, 2), keepdims=True)) / (x.std(axis=(1, 2), keepdims=True) + 1e-6)
        return torch.from_numpy(x), torch.from_numpy(y)


def iou(pred, target, n_classes=3):
    ious = []
    for c in range(1, n_classes):
        inter = ((pred == c) & (target == c)).sum().item()
        union = ((pred == c) | (target == c)).sum().item()
        ious.append(inter / union if union else 1.0)
    return sum(ious) / len(ious)


rank, local_rank, world, device = setup_horovod(args.seed)
log = get_logger()
log.info(f"world size {world}, local rank {local_rank}, device {device}")

train_set = ClimateTiles(os.path.join(args.data_dir, "train"))
val_set = ClimateTiles(os.path.join(args.data_dir, "validation"))
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler, num_workers=2)

model = TinyDeepLab().to(device)
criterion = nn.CrossEntropyLoss(weight=torch.tensor(args.class_weights, device=device))
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-4)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

best_iou = 0.0
for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 25 == 0:
            log.info(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    scheduler.step()
    samples_per_sec = len(train_sampler) / (time.time() - t0)

    model.eval()
    tot_loss, tot_iou, nb = 0.0, 0.0, 0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            tot_loss += criterion(out, y).item()
            tot_iou += iou(out.argmax(1), y)
            nb += 1
    val_loss = reduce_mean(tot_loss / max(nb, 1), "val_loss")
    val_iou = reduce_mean(tot_iou / max(nb, 1), "val_iou")
    throughput = reduce_mean(samples_per_sec, "throughput") * hvd.size()
    log.info(f"epoch {epoch} val_loss {val_loss:.4f} val_iou {val_iou:.4f} "
             f"throughput {throughput:.1f} samples/s")

    is_best = val_iou > best_iou
    best_iou = max(best_iou, val_iou)
    save_checkpoint({"epoch": epoch, "state_dict": model.state_dict(),
                     "optimizer": optimizer.state_dict(), "best_iou": best_iou},
                    is_best, args.ckpt_dir)
