"""LSTM autoencoder for bearing vibration (sequence-to-sequence reconstruction).

Distributed with Horovod; mixed precision on GPU; resumable.

    horovodrun -np 4 python train_hvd.py --data /data/bearings.npz --amp --resume
"""
from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

import numpy as np
import torch
from torch import nn
import horovod.torch as hvd

LOG = logging.getLogger("bearing")


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=Path("data/bearings.npz"))
    ap.add_argument("--ckpt-dir", type=Path, default=Path("checkpoints"))
    ap.add_argument("--global-batch", type=int, default=512, help="summed over all workers")
    ap.add_argument("--lr", type=float, default=2e-3, help="tuned for --global-batch")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--save-every", type=int, default=5)
    ap.add_argument("--patience", type=int, default=8)
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--resume", action="store_true")
    return ap.parse_args()


class LSTMAE(nn.Module):
    def __init__(self, n_feat: int, hidden: int):
        super().__init__()
        self.enc = nn.LSTM(n_feat, hidden, batch_first=True)
        self.dec = nn.LSTM(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_feat)

    def forward(self, x):
        _, (h, _) = self.enc(x)
        z = h[-1].unsqueeze(1).repeat(1, x.size(1), 1)
        y, _ = self.dec(z)
        return self.out(y)


def worker_slice(arr: np.ndarray) -> np.ndarray:
    """Strided slice for this worker, trimmed so all workers hold the same count."""
    per_worker = len(arr) // hvd.size()
    return arr[hvd.rank()::hvd.size()][:per_worker]


def batches(x: torch.Tensor, bs: int, shuffle: bool, gen: torch.Generator | None = None):
    order = torch.randperm(len(x), generator=gen) if shuffle else torch.arange(len(x))
    for i in range(0, len(x) - bs + 1 if shuffle else len(x), bs):
        yield x[order[i:i + bs]]


def main():
    args = parse_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    use_amp = args.amp and device.type == "cuda"

    raw = np.load(args.data)
    x_tr = torch.from_numpy(worker_slice(raw["train"]).astype(np.float32))
    x_va = torch.from_numpy(worker_slice(raw["val"]).astype(np.float32))
    local_bs = args.global_batch // hvd.size()

    model = LSTMAE(x_tr.shape[-1], args.hidden).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   compression=hvd.Compression.fp16 if use_amp else hvd.Compression.none)
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    crit = nn.MSELoss()

    start_epoch, best = 0, float("inf")
    last = args.ckpt_dir / "last.pt"
    if args.resume and hvd.rank() == 0 and last.exists():
        state = torch.load(last, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        scaler.load_state_dict(state["scaler"])
        start_epoch, best = state["epoch"] + 1, state["best"]
        LOG.info("resumed from %s at epoch %d", last, start_epoch)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0, name="resume")

    gen = torch.Generator().manual_seed(1000 + hvd.rank())
    stale = 0
    for epoch in range(start_epoch, args.epochs):
        model.train()
        for xb in batches(x_tr, local_bs, True, gen):
            xb = xb.to(device, non_blocking=True)
            opt.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = crit(model(xb), xb)
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()

        model.eval()
        with torch.no_grad():
            errs = [crit(model(xb.to(device)), xb.to(device)).item() for xb in batches(x_va, 1024, False)]
        val = hvd.allreduce(torch.tensor(float(np.mean(errs))), name="val_mse").item()
        improved = val < best
        best = min(best, val)
        stale = 0 if improved else stale + 1
        LOG.info("epoch %d  val_mse %.6f  best %.6f", epoch, val, best)

        if hvd.rank() == 0 and (improved or (epoch + 1) % args.save_every == 0):
            args.ckpt_dir.mkdir(parents=True, exist_ok=True)
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "scaler": scaler.state_dict(),
                     "epoch": epoch, "best": best}
            torch.save(state, last)
            if improved:
                torch.save(model.state_dict(), args.ckpt_dir / "best_model.pt")
        if stale >= args.patience:
            LOG.info("no improvement for %d epochs, stopping", stale)
            break


if __name__ == "__main__":
    main()
