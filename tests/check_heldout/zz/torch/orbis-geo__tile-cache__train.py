"""Land-cover segmentation on Sentinel tiles.

Tiles are staged to node-local NVMe before training (shared FS is too slow for
random access). Launch with `horovodrun -np 16 -H node1:4,... python train.py`.
"""
import argparse
import logging
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from models import TinySegNet
from tilecache.cache import NodeCache
from tilecache.data import TileDataset, make_loader
from tilecache.runtime import Runtime

logging.basicConfig(level=logging.INFO, format="[%(process)d] %(message)s")
log = logging.getLogger("train")


def args_():
    p = argparse.ArgumentParser()
    p.add_argument("--remote", default="/lustre/projects/landcover/tiles_v3")
    p.add_argument("--scratch", default=os.environ.get("TMPDIR", "/tmp"))
    p.add_argument("--bs", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--classes", type=int, default=9)
    p.add_argument("--out", default="runs/segnet")
    return p.parse_args()


def iou_stats(logits, mask, classes):
    pred = logits.argmax(1)
    inter = torch.zeros(classes, dtype=torch.float64)
    union = torch.zeros(classes, dtype=torch.float64)
    for c in range(classes):
        p, t = pred == c, mask == c
        inter[c] += (p & t).sum().item()
        union[c] += (p | t).sum().item()
    return inter, union


def main():
    a = args_()
    local_root = NodeCache(a.remote, a.scratch).sync()
    rt = Runtime(seed=3)

    train_ds = TileDataset(local_root, "train", augment=True)
    val_ds = TileDataset(local_root, "val")
    train_dl, train_sampler = make_loader(train_ds, a.bs, rt.rank, rt.size, train=True)
    val_dl, _ = make_loader(val_ds, a.bs, rt.rank, rt.size, train=False)

    model = TinySegNet(classes=a.classes).to(rt.device)
    opt = rt.build_optimizer(model, a.lr)
    best = 0.0
    for epoch in range(a.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for img, mask in train_dl:
            img, mask = img.to(rt.device), mask.to(rt.device)
            opt.zero_grad()
            loss = F.cross_entropy(model(img), mask)
            loss.backward()
            opt.step()

        model.eval()
        inter = torch.zeros(a.classes, dtype=torch.float64)
        union = torch.zeros(a.classes, dtype=torch.float64)
        with torch.no_grad():
            for img, mask in val_dl:
                i, u = iou_stats(model(img.to(rt.device)).cpu(), mask, a.classes)
                inter += i
                union += u
        inter, union = rt.sum(inter, "inter"), rt.sum(union, "union")
        miou = (inter / union.clamp(min=1)).mean().item()
        if hvd.rank() == 0:
            log.info("epoch %d loss %.4f mIoU %.4f", epoch, loss.item(), miou)
            os.makedirs(a.out, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(a.out, "last.pt"))
            if miou > best:
                best = miou
                torch.save(model.state_dict(), os.path.join(a.out, "best.pt"))


if __name__ == "__main__":
    main()
