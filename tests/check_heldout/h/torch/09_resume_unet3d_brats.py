"""3D U-Net for brain tumour segmentation (BraTS, 4 MRI modalities -> 3 tumour regions).

Jobs on our cluster are limited to 24 h, so training is resumed from the last checkpoint:
    mpirun -np 8 python 09_resume_unet3d_brats.py --data /scratch/brats_npy --resume ckpt/last.pt
"""
import argparse
import glob
import os
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


@dataclass
class Cfg:
    data: str
    resume: str
    ckpt_dir: str = "ckpt"
    epochs: int = 300
    batch_size: int = 2
    lr: float = 1e-4
    patch: int = 128
    val_every: int = 5


class BraTS(Dataset):
    def __init__(self, cases, patch, train):
        self.cases, self.patch, self.train = cases, patch, train

    def __len__(self):
        return len(self.cases)

    def __getitem__(self, i):
        img = np.load(self.cases[i] + "_img.npy")   # (4, D, H, W) float32, z-scored
        seg = np.load(self.cases[i] + "_seg.npy")   # (3, D, H, W) uint8: WT, TC, ET
        _, D, H, W = img.shape
        p = self.patch
        if self.train:
            z, y, x = (np.random.randint(0, max(1, s - p + 1)) for s in (D, H, W))
        else:
            z, y, x = (max(0, (s - p) // 2) for s in (D, H, W))
        img = img[:, z:z + p, y:y + p, x:x + p]
        seg = seg[:, z:z + p, y:y + p, x:x + p]
        if self.train:
            for ax in (1, 2, 3):
                if np.random.rand() < 0.5:
                    img, seg = np.flip(img, ax), np.flip(seg, ax)
        return torch.from_numpy(img.copy()), torch.from_numpy(seg.copy()).float()


def block(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), nn.InstanceNorm3d(cout), nn.LeakyReLU(0.01, True),
                         nn.Conv3d(cout, cout, 3, padding=1), nn.InstanceNorm3d(cout), nn.LeakyReLU(0.01, True))


class UNet3D(nn.Module):
    def __init__(self, cin=4, nout=3, f=(24, 48, 96, 192)):
        super().__init__()
        self.enc = nn.ModuleList([block(cin, f[0])] + [block(f[i], f[i + 1]) for i in range(len(f) - 1)])
        self.up = nn.ModuleList([nn.ConvTranspose3d(f[i + 1], f[i], 2, stride=2) for i in range(len(f) - 1)])
        self.dec = nn.ModuleList([block(2 * f[i], f[i]) for i in range(len(f) - 1)])
        self.head = nn.Conv3d(f[0], nout, 1)

    def forward(self, x):
        skips = []
        for i, enc in enumerate(self.enc):
            x = enc(x if i == 0 else F.max_pool3d(x, 2))
            skips.append(x)
        x = skips.pop()
        for i in reversed(range(len(self.up))):
            x = self.dec[i](torch.cat([self.up[i](x), skips.pop()], 1))
        return self.head(x)


def soft_dice_loss(logits, target, eps=1e-5):
    p = torch.sigmoid(logits)
    inter = (p * target).sum((2, 3, 4))
    den = p.sum((2, 3, 4)) + target.sum((2, 3, 4))
    return 1 - ((2 * inter + eps) / (den + eps)).mean()


class DiceMeter:
    """Accumulates per-region intersections and volumes; averaged over all ranks on demand."""

    def __init__(self):
        self.inter = torch.zeros(3, dtype=torch.float64)
        self.vol = torch.zeros(3, dtype=torch.float64)

    def add(self, logits, target):
        pred = (torch.sigmoid(logits) > 0.5).double()
        t = target.double()
        self.inter += (pred * t).sum((0, 2, 3, 4)).cpu()
        self.vol += (pred.sum((0, 2, 3, 4)) + t.sum((0, 2, 3, 4))).cpu()

    def dice(self):
        inter = hvd.allreduce(self.inter, op=hvd.Sum, name="dice_inter")
        vol = hvd.allreduce(self.vol, op=hvd.Sum, name="dice_vol")
        return (2 * inter / vol.clamp(min=1)).tolist()


def main(cfg: Cfg):
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())

    cases = sorted(p[:-len("_img.npy")] for p in glob.glob(os.path.join(cfg.data, "*_img.npy")))
    rng = np.random.RandomState(0)
    rng.shuffle(cases)
    n_val = len(cases) // 10
    train_ds = BraTS(cases[n_val:], cfg.patch, train=True)
    val_ds = BraTS(cases[:n_val], cfg.patch, train=False)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=6, pin_memory=True, persistent_workers=True)
    val_loader = DataLoader(val_ds, batch_size=1, sampler=val_sampler, num_workers=2)

    model = UNet3D().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=1e-5)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    start_epoch, best = 0, 0.0
    if cfg.resume and os.path.isfile(cfg.resume) and hvd.rank() == 0:
        ckpt = torch.load(cfg.resume, map_location="cuda")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch, best = ckpt["epoch"] + 1, ckpt["best"]
        print(f"resumed from {cfg.resume} at epoch {start_epoch}")
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    best = hvd.broadcast_object(best, root_rank=0, name="best")

    os.makedirs(cfg.ckpt_dir, exist_ok=True)
    for epoch in range(start_epoch, cfg.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        is_best = False
        for step, (img, seg) in enumerate(train_loader):
            img, seg = img.cuda(non_blocking=True), seg.cuda(non_blocking=True)
            logits = model(img)
            loss = soft_dice_loss(logits, seg) + F.binary_cross_entropy_with_logits(logits, seg)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if hvd.rank() == 0 and step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)

        if (epoch + 1) % cfg.val_every == 0:
            model.eval()
            meter = DiceMeter()
            with torch.no_grad():
                for img, seg in val_loader:
                    meter.add(model(img.cuda()), seg.cuda())
            wt, tc, et = meter.dice()
            mean_dice = (wt + tc + et) / 3
            if hvd.rank() == 0:
                print(f"epoch {epoch} val dice WT {wt:.3f} TC {tc:.3f} ET {et:.3f} mean {mean_dice:.3f}")
            if mean_dice > best:
                best, is_best = mean_dice, True

        if hvd.local_rank() == 0:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "epoch": epoch, "best": best}
            torch.save(state, os.path.join(cfg.ckpt_dir, "last.pt"))
            if is_best:
                torch.save(state, os.path.join(cfg.ckpt_dir, "best.pt"))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--resume", default="")
    a = ap.parse_args()
    main(Cfg(data=a.data, resume=a.resume))
