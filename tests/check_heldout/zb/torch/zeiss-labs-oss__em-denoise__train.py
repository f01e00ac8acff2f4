"""Noise2Noise denoiser for serial-section EM stacks.

Pairs of independent fast scans of the same section (scan_a / scan_b) are used as input and target.
Gradients are summed over workers (op=hvd.Sum), so a job on N workers takes the same step as one worker
with an N times larger batch at the same learning rate: lr is not rescaled.

    mpirun -np 8 python train.py --stack /srv/em/n2n/L4_pairs.npz --tb-dir /srv/em/tb/n2n
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class PairPatches(Dataset):
    def __init__(self, path, split, patch=128, n_patches=4000, seed=0):
        with np.load(path) as z:
            a, b = z["scan_a"], z["scan_b"]            # (S, H, W) uint8
        cut = int(0.9 * len(a))
        sl = slice(0, cut) if split == "train" else slice(cut, None)
        self.a, self.b = a[sl], b[sl]
        rng = np.random.default_rng(seed)
        s, h, w = self.a.shape
        self.coords = np.stack([rng.integers(0, s, n_patches), rng.integers(0, h - patch + 1, n_patches),
                                rng.integers(0, w - patch + 1, n_patches)], 1)
        self.patch = patch

    def __len__(self):
        return len(self.coords)

    def __getitem__(self, i):
        s, y, x = self.coords[i]
        p = self.patch
        a = self.a[s, y:y + p, x:x + p].astype(np.float32) / 255.0
        b = self.b[s, y:y + p, x:x + p].astype(np.float32) / 255.0
        return torch.from_numpy(a)[None], torch.from_numpy(b)[None]


class DnCNN(nn.Module):
    def __init__(self, depth=8, width=48):
        super().__init__()
        layers = [nn.Conv2d(1, width, 3, padding=1), nn.ReLU(inplace=True)]
        for _ in range(depth - 2):
            layers += [nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True)]
        layers.append(nn.Conv2d(width, 1, 3, padding=1))
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return x - self.body(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stack", default="/srv/em/n2n/L4_pairs.npz")
    ap.add_argument("--out", default="/srv/em/models/n2n")
    ap.add_argument("--tb-dir", default="")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=0.005)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--patches", type=int, default=4000)
    ap.add_argument("--save-every", type=int, default=5)
    args = ap.parse_args()

    hvd.init()
    torch.manual_seed(0)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    train_ds = PairPatches(args.stack, "train", n_patches=args.patches, seed=0)
    val_ds = PairPatches(args.stack, "val", n_patches=args.patches // 10, seed=1)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=0)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=2,
                              drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler, num_workers=2)

    model = DnCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    writer = None
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        if args.tb_dir:
            from torch.utils.tensorboard import SummaryWriter
            writer = SummaryWriter(args.tb_dir)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for noisy_a, noisy_b in train_loader:
            noisy_a, noisy_b = noisy_a.to(device), noisy_b.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(noisy_a), noisy_b)
            loss.backward()
            optimizer.step()

        model.eval()
        sums = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for noisy_a, noisy_b in val_loader:
                out = model(noisy_a.to(device)).clamp(0, 1).cpu()
                mse = ((out - noisy_b) ** 2).mean(dim=(1, 2, 3))
                sums[0] += (10 * torch.log10(1.0 / mse.clamp(min=1e-10))).sum()
                sums[1] += len(mse)
        sums = hvd.allreduce(sums, op=hvd.Sum, name="psnr_sums")
        psnr = (sums[0] / sums[1]).item()

        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  train_mse {loss.item():.5f}  val_psnr(b) {psnr:.2f} dB", flush=True)
            if writer is not None:
                writer.add_scalar("val/psnr", psnr, epoch)
            if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
                torch.save({"epoch": epoch, "model": model.state_dict()},
                           os.path.join(args.out, f"dncnn_n2n_e{epoch + 1:03d}.pt"))
    if writer is not None:
        writer.close()


if __name__ == "__main__":
    main()
