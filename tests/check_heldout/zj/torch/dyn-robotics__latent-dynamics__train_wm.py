"""Latent dynamics (world model) pre-training on offline trajectories.

Encoder + GRU dynamics predict the next latent, target encoder is an EMA of the online one
(BYOL-style, no reconstruction). Multi-GPU with Horovod:

    horovodrun -np 4 python train_wm.py --data data/cheetah_run.npz --amp
"""
import argparse
import copy
import os
import time

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def get_parser():
    p = argparse.ArgumentParser("train_wm")
    p.add_argument("--data", default="data/cheetah_run.npz")
    p.add_argument("--seq-len", type=int, default=16)
    p.add_argument("--latent", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--tau", type=float, default=0.995, help="EMA rate of the target encoder")
    p.add_argument("--clip-grad", type=float, default=100.0)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--ckpt", default="checkpoints/wm.pt")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    return p


class TrajectoryWindows(Dataset):
    """All windows of length seq_len+1 from obs (N, T, D), act (N, T, A), rew (N, T)."""

    def __init__(self, path, seq_len, split="train", val_frac=0.1):
        blob = np.load(path)
        n_val = max(1, int(len(blob["obs"]) * val_frac))
        sl = slice(n_val, None) if split == "train" else slice(0, n_val)
        self.obs, self.act, self.rew = blob["obs"][sl], blob["act"][sl], blob["rew"][sl]
        T = self.obs.shape[1]
        self.index = [(i, t) for i in range(len(self.obs)) for t in range(0, T - seq_len - 1, seq_len // 2)]
        self.seq_len = seq_len

    def __len__(self):
        return len(self.index)

    def __getitem__(self, k):
        i, t = self.index[k]
        s = slice(t, t + self.seq_len + 1)
        return (torch.as_tensor(self.obs[i, s], dtype=torch.float32),
                torch.as_tensor(self.act[i, s], dtype=torch.float32),
                torch.as_tensor(self.rew[i, s], dtype=torch.float32))


class WorldModel(nn.Module):
    def __init__(self, obs_dim, act_dim, latent):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 256), nn.ELU(), nn.Linear(256, latent))
        self.dynamics = nn.GRU(latent + act_dim, latent, batch_first=True)
        self.predictor = nn.Sequential(nn.Linear(latent, latent), nn.ELU(), nn.Linear(latent, latent))
        self.reward = nn.Linear(latent, 1)

    def forward(self, obs, act):
        z = self.encoder(obs[:, :-1])
        h, _ = self.dynamics(torch.cat([z, act[:, :-1]], -1))
        return self.predictor(h), self.reward(h).squeeze(-1)


def wm_loss(model, target_enc, obs, act, rew):
    pred, rew_hat = model(obs, act)
    with torch.no_grad():
        tgt = target_enc(obs[:, 1:])
    latent_loss = 2 - 2 * F.cosine_similarity(pred, tgt, dim=-1).mean()
    return latent_loss + F.mse_loss(rew_hat, rew[:, 1:]), latent_loss


@torch.no_grad()
def ema_update(target, online, tau):
    for pt, po in zip(target.parameters(), online.parameters()):
        pt.mul_(tau).add_(po.detach(), alpha=1 - tau)


def main():
    args = get_parser().parse_args()
    hvd.init()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed + hvd.rank())
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    verbose = hvd.rank() == 0

    train_set = TrajectoryWindows(args.data, args.seq_len, "train")
    val_set = TrajectoryWindows(args.data, args.seq_len, "val")
    # different shuffling seed per worker -> more diverse batches across the job
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=args.seed + hvd.rank(), drop_last=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler)

    obs_dim, act_dim = train_set.obs.shape[-1], train_set.act.shape[-1]
    model = WorldModel(obs_dim, act_dim, args.latent).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    start_epoch = 0
    if args.resume and verbose and os.path.exists(args.ckpt):
        ckpt = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    target_enc = copy.deepcopy(model.encoder).requires_grad_(False)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for step, (obs, act, rew) in enumerate(train_loader):
            obs, act, rew = obs.to(device), act.to(device), rew.to(device)
            with torch.autocast(device.type, enabled=scaler.is_enabled()):
                loss, _ = wm_loss(model, target_enc, obs, act, rew)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            gnorm = nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            ema_update(target_enc, model.encoder, args.tau)
            if verbose and step % 50 == 0:
                print(f"ep {epoch} step {step} loss {loss.item():.4f} |g| {gnorm:.2f}", flush=True)

        model.eval()
        val_loss, n = 0.0, 0
        with torch.no_grad():
            for obs, act, rew in val_loader:
                l, _ = wm_loss(model, target_enc, obs.to(device), act.to(device), rew.to(device))
                val_loss, n = val_loss + l.item(), n + 1
        val_loss = hvd.allreduce(torch.tensor(val_loss / max(n, 1)), name="val_loss").item()
        if verbose:
            print(f"epoch {epoch} val {val_loss:.4f} ({time.time() - t0:.0f}s)", flush=True)
            os.makedirs(os.path.dirname(args.ckpt) or ".", exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(), "target": target_enc.state_dict()}, args.ckpt)


if __name__ == "__main__":
    main()
