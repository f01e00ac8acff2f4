"""Convolutional VAE on 64x64 galaxy cutouts, Horovod + bf16 autocast.

Data: <data_dir>/train.npy, <data_dir>/val.npy, uint8 [N, 3, 64, 64]
"""
import argparse
import os
from datetime import datetime

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd


class NpyImages(Dataset):
    def __init__(self, path):
        self.arr = np.load(path, mmap_mode="r")

    def __len__(self):
        return self.arr.shape[0]

    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.arr[i], dtype=np.float32) / 255.0)


class VAE(nn.Module):
    def __init__(self, z=128):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 32, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(32, 64, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(64, 128, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(128, 256, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Flatten())
        self.mu, self.logvar = nn.Linear(256 * 16, z), nn.Linear(256 * 16, z)
        self.fc = nn.Linear(z, 256 * 16)
        self.dec = nn.Sequential(
            nn.ConvTranspose2d(256, 128, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(128, 64, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        zs = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(self.fc(zs).view(-1, 256, 4, 4)), mu, logvar


def elbo_terms(x, recon, mu, logvar):
    rec = F.binary_cross_entropy_with_logits(recon.float(), x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar.float() - mu.float().pow(2) - logvar.float().exp())
    return rec, kld


def get_loaders(data_dir, batch_size, rank, world):
    train = NpyImages(os.path.join(data_dir, "train.npy"))
    val = NpyImages(os.path.join(data_dir, "val.npy"))
    train_sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=17)
    val_sampler = DistributedSampler(val, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train, batch_size=batch_size, sampler=train_sampler, num_workers=8, drop_last=True),
            DataLoader(val, batch_size=2 * batch_size, sampler=val_sampler, num_workers=4),
            train_sampler)


def sync_model(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def global_mean(total, count, name):
    t = hvd.allreduce(torch.tensor([total, count], dtype=torch.float64), op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()


def train_epoch(model, loader, optimizer, device, beta):
    model.train()
    tot, n = 0.0, 0
    for x in loader:
        x = x.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            recon, mu, logvar = model(x)
        rec, kld = elbo_terms(x, recon, mu, logvar)
        loss = (rec + beta * kld) / x.size(0)
        loss.backward()
        optimizer.step()
        tot += loss.item() * x.size(0)
        n += x.size(0)
    return global_mean(tot, n, "train_elbo")


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    tot, n = 0.0, 0
    for x in loader:
        x = x.to(device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            recon, mu, logvar = model(x)
        rec, kld = elbo_terms(x, recon, mu, logvar)
        tot += (rec + kld).item()
        n += x.size(0)
    return global_mean(tot, n, "val_elbo")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--beta", type=float, default=1.0)
    ap.add_argument("--save-every", type=int, default=5)
    ap.add_argument("--run-dir", default=f"runs/vae_{datetime.now():%Y%m%d_%H%M}")
    args = ap.parse_args()

    hvd.init()
    rank, world, local_rank = hvd.rank(), hvd.size(), hvd.local_rank()
    is_master = rank == 0
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    train_loader, val_loader, train_sampler = get_loaders(args.data_dir, args.batch_size, rank, world)
    model = VAE().to(device)
    lr = args.lr * world
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.5, 0.999))
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    sync_model(model, optimizer)

    writer = SummaryWriter(args.run_dir) if is_master else None
    if is_master:
        os.makedirs(args.run_dir, exist_ok=True)
    for epoch in range(1, args.epochs + 1):
        train_sampler.set_epoch(epoch)
        beta = min(1.0, epoch / 10) * args.beta    # KL annealing
        tr = train_epoch(model, train_loader, optimizer, device, beta)
        va = evaluate(model, val_loader, device)
        if is_master:
            print(f"{epoch:4d} train_loss={tr:.2f} val_nelbo={va:.2f}")
            writer.add_scalar("train/loss", tr, epoch)
            writer.add_scalar("val/nelbo", va, epoch)
        if is_master and epoch % args.save_every == 0:
            torch.save({"epoch": epoch, "model": model.state_dict(), "opt": optimizer.state_dict()},
                       os.path.join(args.run_dir, f"vae_{epoch:04d}.pt"))


if __name__ == "__main__":
    main()
