"""Multi-task dense prediction (semantic segmentation + depth) on NYUv2, shared encoder.

Data are preprocessed into numpy arrays:
  nyu/train_rgb.npy (N,3,240,320) uint8, train_seg.npy (N,240,320) int64 (255 = ignore),
  train_depth.npy (N,1,240,320) float32; same for val_*.
"""
import argparse
import itertools
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
import torch.utils.data.distributed
import horovod.torch as hvd

NUM_CLASSES = 13


class NYUv2(Dataset):
    def __init__(self, root, split, augment=False):
        self.rgb = np.load(os.path.join(root, f"{split}_rgb.npy"), mmap_mode="r")
        self.seg = np.load(os.path.join(root, f"{split}_seg.npy"), mmap_mode="r")
        self.depth = np.load(os.path.join(root, f"{split}_depth.npy"), mmap_mode="r")
        self.augment = augment

    def __len__(self):
        return self.rgb.shape[0]

    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.rgb[i], dtype=np.float32) / 255.0)
        s = torch.from_numpy(np.array(self.seg[i]))
        d = torch.from_numpy(np.array(self.depth[i]))
        if self.augment and torch.rand(1).item() < 0.5:
            x, s, d = x.flip(-1), s.flip(-1), d.flip(-1)
        return x, s, d


def down(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 2, 1), nn.BatchNorm2d(cout), nn.ReLU(True),
                         nn.Conv2d(cout, cout, 3, 1, 1), nn.BatchNorm2d(cout), nn.ReLU(True))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = nn.Sequential(down(3, 32), down(32, 64), down(64, 128), down(128, 256))

    def forward(self, x):
        return self.stages(x)


class Decoder(nn.Module):
    def __init__(self, cout):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(256, 128, 3, 1, 1), nn.ReLU(True),
                                  nn.Conv2d(128, 64, 3, 1, 1), nn.ReLU(True),
                                  nn.Conv2d(64, cout, 1))

    def forward(self, f, size):
        return F.interpolate(self.conv(f), size=size, mode="bilinear", align_corners=False)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="nyu")
    ap.add_argument("--bs", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--w-depth", type=float, default=1.0)
    ap.add_argument("--save-dir", default="mtl_ckpt")
    return ap.parse_args()


def evaluate(encoder, seg_head, depth_head, loader):
    encoder.eval(); seg_head.eval(); depth_head.eval()
    inter = torch.zeros(NUM_CLASSES, device="cuda")
    union = torch.zeros(NUM_CLASSES, device="cuda")
    abs_err, n_px = 0.0, 0
    with torch.no_grad():
        for x, s, d in loader:
            x, s, d = x.cuda(), s.cuda(), d.cuda()
            f = encoder(x)
            pred = seg_head(f, x.shape[-2:]).argmax(1)
            valid = s != 255
            for c in range(NUM_CLASSES):
                p, t = (pred == c) & valid, (s == c) & valid
                inter[c] += (p & t).sum()
                union[c] += (p | t).sum()
            dm = d > 0
            abs_err += (depth_head(f, x.shape[-2:]) - d).abs()[dm].sum().item()
            n_px += dm.sum().item()
    miou = (inter / union.clamp(min=1)).mean().item()
    return miou, abs_err / max(n_px, 1)


def main():
    args = parse()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())

    train_ds = NYUv2(args.root, "train", augment=True)
    val_ds = NYUv2(args.root, "val")
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = DataLoader(train_ds, batch_size=args.bs, shuffle=True, num_workers=4,
                              pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=16, num_workers=2)  # every rank: full val set

    encoder = Encoder().cuda()
    seg_head = Decoder(NUM_CLASSES).cuda()
    depth_head = Decoder(1).cuda()
    modules = {"enc": encoder, "seg": seg_head, "depth": depth_head}

    params = itertools.chain(*(m.parameters() for m in modules.values()))
    optimizer = torch.optim.Adam(params, lr=args.lr * hvd.size())
    named = [(f"{k}.{n}", p) for k, m in modules.items() for n, p in m.named_parameters()]
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=named)

    hvd.broadcast_parameters(encoder.state_dict(), root_rank=0)
    hvd.broadcast_parameters(seg_head.state_dict(), root_rank=0)

    seg_loss = nn.CrossEntropyLoss(ignore_index=255)
    best_miou = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        for m in modules.values():
            m.train()
        for i, (x, s, d) in enumerate(train_loader):
            x, s, d = x.cuda(non_blocking=True), s.cuda(non_blocking=True), d.cuda(non_blocking=True)
            f = encoder(x)
            l_seg = seg_loss(seg_head(f, x.shape[-2:]), s)
            dpred = depth_head(f, x.shape[-2:])
            mask = d > 0
            l_depth = F.l1_loss(dpred[mask], d[mask])
            loss = l_seg + args.w_depth * l_depth
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if hvd.rank() == 0 and i % 100 == 0:
                print(f"[{epoch}:{i}] seg {l_seg.item():.3f} depth {l_depth.item():.3f}", flush=True)

        miou, mae = evaluate(encoder, seg_head, depth_head, val_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: mIoU {miou:.4f}  depth MAE {mae:.4f}")
            os.makedirs(args.save_dir, exist_ok=True)
            ckpt = {k: m.state_dict() for k, m in modules.items()}
            ckpt.update(epoch=epoch, miou=miou)
            torch.save(ckpt, os.path.join(args.save_dir, "last.pth"))
            if miou > best_miou:
                best_miou = miou
                torch.save(ckpt, os.path.join(args.save_dir, "best.pth"))


if __name__ == "__main__":
    main()
