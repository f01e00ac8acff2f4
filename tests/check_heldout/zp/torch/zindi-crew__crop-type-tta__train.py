"""Zindi 'Radiant Earth crop type' - 1D CNN over per-field Sentinel-2 time series.

horovodrun -np 4 python train.py --data fields_s2.npz --amp
(resume after a pre-emption: same command with --resume runs/last.pt)
"""
import argparse
import csv
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="data/fields_s2.npz")
    ap.add_argument("--out", default="runs")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch", type=int, default=128, help="per worker")
    ap.add_argument("--base-lr", type=float, default=5e-4, help="lr of a single worker")
    ap.add_argument("--warmup", type=int, default=5, help="epochs to ramp lr to base-lr * workers")
    ap.add_argument("--val-frac", type=float, default=0.15)
    ap.add_argument("--tta", type=int, default=4)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--resume", default=None)
    ap.add_argument("--seed", type=int, default=7)
    return ap.parse_args(argv)


class TempCNN(nn.Module):
    def __init__(self, bands, n_classes, width=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(bands, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU())
        self.fc = nn.Linear(width, n_classes)

    def forward(self, x):                      # x: (B, T, C)
        return self.fc(self.body(x.transpose(1, 2)).amax(-1))


def jitter(x, sigma=0.03):
    return x + sigma * torch.randn_like(x)


def split_and_shard(n, val_frac, seed):
    """Same permutation on every worker; the train part is dealt out in equal
    strided slices (remainder dropped) so all workers run the same number of steps."""
    perm = np.random.default_rng(seed).permutation(n)
    n_val = int(n * val_frac)
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    per_rank = len(train_idx) // hvd.size()
    return train_idx[hvd.rank()::hvd.size()][:per_rank], val_idx


@torch.no_grad()
def evaluate(model, X, y, device, bs=1024):
    model.eval()
    correct, nll = 0, 0.0
    for s in range(0, len(X), bs):
        xb, yb = X[s:s + bs].to(device), y[s:s + bs].to(device)
        out = model(xb)
        nll += F.cross_entropy(out, yb, reduction="sum").item()
        correct += (out.argmax(1) == yb).sum().item()
    model.train()
    return nll / len(X), correct / len(X)


@torch.no_grad()
def predict_tta(model, X, device, n_tta, bs=1024):
    model.eval()
    probs = []
    for s in range(0, len(X), bs):
        xb = X[s:s + bs].to(device)
        p = F.softmax(model(xb), 1)
        for _ in range(n_tta - 1):
            p += F.softmax(model(jitter(xb)), 1)
        probs.append((p / n_tta).cpu())
    return torch.cat(probs).numpy()


def main(args):
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    amp = args.amp and use_cuda
    torch.manual_seed(args.seed)

    d = np.load(args.data)
    X, y = torch.tensor(d["X_train"], dtype=torch.float32), torch.tensor(d["y_train"], dtype=torch.long)
    X_test, test_ids = torch.tensor(d["X_test"], dtype=torch.float32), d["test_ids"]
    n_classes = int(y.max()) + 1
    train_idx, val_idx = split_and_shard(len(X), args.val_frac, args.seed)
    Xtr, ytr = X[train_idx], y[train_idx]

    model = TempCNN(X.shape[2], n_classes).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.base_lr, weight_decay=1e-4)
    steps_per_epoch = len(Xtr) // args.batch
    warm_steps = args.warmup * steps_per_epoch
    total_steps = args.epochs * steps_per_epoch

    def lr_factor(step):  # 1 -> hvd.size() over the warmup, then cosine
        if step < warm_steps:
            return 1.0 + (hvd.size() - 1.0) * step / warm_steps
        t = (step - warm_steps) / max(1, total_steps - warm_steps)
        return hvd.size() * 0.5 * (1 + math.cos(math.pi * t))

    for g in optimizer.param_groups:  # LambdaLR(last_epoch=...) needs it on every worker
        g.setdefault("initial_lr", args.base_lr)
    start_epoch = 0
    if args.resume and hvd.rank() == 0:
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if amp else hvd.Compression.none)
    sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor, last_epoch=start_epoch * steps_per_epoch - 1)
    scaler = torch.amp.GradScaler("cuda", enabled=amp)

    for epoch in range(start_epoch, args.epochs):
        perm = torch.randperm(len(Xtr), generator=torch.Generator().manual_seed(args.seed * 1000 + epoch))
        for i in range(steps_per_epoch):
            b = perm[i * args.batch:(i + 1) * args.batch]
            xb, yb = jitter(Xtr[b]).to(device), ytr[b].to(device)
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=amp):
                loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            sched.step()

        # every worker scores the whole (small) validation split; numbers are identical
        val_loss, val_acc = evaluate(model, X[val_idx], y[val_idx], device)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} lr {sched.get_last_lr()[0]:.2e} train_loss {loss.item():.4f} "
                  f"val_loss {val_loss:.4f} val_acc {val_acc:.4f}", flush=True)
            os.makedirs(args.out, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       os.path.join(args.out, "last.pt"))

    if hvd.rank() == 0:
        probs = predict_tta(model, X_test, device, args.tta)
        with open(os.path.join(args.out, "submission.csv"), "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["field_id"] + [f"crop_{k}" for k in range(n_classes)])
            for fid, p in zip(test_ids, probs):
                w.writerow([int(fid)] + [f"{v:.5f}" for v in p])


if __name__ == "__main__":
    main(parse_args())
