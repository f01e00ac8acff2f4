"""Convolutional beta-VAE on CelebA-64, Horovod data parallel, AMP + gradient accumulation.

horovodrun -np 4 python train_vae.py --root /scratch/celeba --beta 4 --accum 2
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd


class ConvVAE(nn.Module):
    def __init__(self, z_dim=128, ch=32):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, ch, 4, 2, 1), nn.ReLU(), nn.Conv2d(ch, ch * 2, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(ch * 2, ch * 4, 4, 2, 1), nn.ReLU(), nn.Conv2d(ch * 4, ch * 8, 4, 2, 1), nn.ReLU(),
            nn.Flatten())
        self.mu = nn.Linear(ch * 8 * 16, z_dim)
        self.logvar = nn.Linear(ch * 8 * 16, z_dim)
        self.fc = nn.Linear(z_dim, ch * 8 * 16)
        self.dec = nn.Sequential(
            nn.Unflatten(1, (ch * 8, 4, 4)),
            nn.ConvTranspose2d(ch * 8, ch * 4, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(ch * 4, ch * 2, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(ch * 2, ch, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(ch, 3, 4, 2, 1))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(self.fc(z)), mu, logvar


def elbo_terms(x, recon, mu, logvar):
    rec = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
    return rec, kl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--beta", type=float, default=1.0)
    ap.add_argument("--accum", type=int, default=1)
    ap.add_argument("--ckpt-dir", default="ckpt_vae")
    args = ap.parse_args()

    hvd.init()
    torch.manual_seed(1)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if use_cuda else "cpu")

    tf = transforms.Compose([transforms.CenterCrop(148), transforms.Resize(64), transforms.ToTensor()])
    train_set = datasets.ImageFolder(os.path.join(args.root, "train"), tf)
    val_set = datasets.ImageFolder(os.path.join(args.root, "val"), tf)
    train_sampler = DistributedSampler(train_set, shuffle=True)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.bs, sampler=train_sampler, num_workers=4,
                              drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.bs, sampler=val_sampler, num_workers=4)

    model = ConvVAE().to(dev)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size() * args.accum)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.accum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler = torch.cuda.amp.GradScaler(enabled=use_cuda)

    best = float("inf")
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        for it, (x, _) in enumerate(train_loader):
            x = x.to(dev)
            with torch.autocast(dev.type, enabled=use_cuda):
                recon, mu, logvar = model(x)
                rec, kl = elbo_terms(x, recon.float(), mu.float(), logvar.float())
                loss = (rec + args.beta * kl) / args.accum
            scaler.scale(loss).backward()
            if (it + 1) % args.accum == 0:
                optimizer.synchronize()
                with optimizer.skip_synchronize():
                    scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()

        model.eval()
        val_loss, n = 0.0, 0
        with torch.no_grad():
            for x, _ in val_loader:
                x = x.to(dev)
                recon, mu, logvar = model(x)
                rec, kl = elbo_terms(x, recon, mu, logvar)
                val_loss += (rec + args.beta * kl).item() * x.shape[0]
                n += x.shape[0]
        val_loss /= max(n, 1)

        if hvd.rank() == 0:
            print(f"epoch {epoch}: val -ELBO {val_loss:.2f}")
            if val_loss < best:
                best = val_loss
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "best.pt"))


if __name__ == "__main__":
    main()
