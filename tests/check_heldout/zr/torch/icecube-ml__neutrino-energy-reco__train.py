#!/usr/bin/env python3
# Energy regression for IceCube-like events: pulses -> per-DOM summary features -> MLP/CNN hybrid.
# Runs under Slurm with --signal=USR1@300 and requeue; the script checkpoints before the wall time
# runs out and picks up the last checkpoint on restart.
import argparse
import math
import os
import signal
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


def get_parser():
    p = argparse.ArgumentParser("nu-energy-reco")
    p.add_argument("--train-files", nargs="+", default=["data/i3_train_000.npz"])
    p.add_argument("--val-files", nargs="+", default=["data/i3_val_000.npz"])
    p.add_argument("--run-dir", default=os.path.join(os.environ.get("SCRATCH", "."), "nu_reco"))
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=3, help="linear warm-up epochs")
    p.add_argument("--time-limit-min", type=float, default=float(os.environ.get("JOB_MINUTES", 1440)))
    return p


class DOMSummaryNet(nn.Module):
    """Input: (B, 5160 DOMs, 4) [charge, first time, time spread, n pulses] -> log10(E/GeV)."""

    def __init__(self, n_doms=5160, n_feat=4):
        super().__init__()
        self.dom = nn.Sequential(nn.Linear(n_feat, 32), nn.GELU(), nn.Linear(32, 8))
        self.head = nn.Sequential(nn.Linear(n_doms * 8, 256), nn.GELU(), nn.Linear(256, 64), nn.GELU(),
                                  nn.Linear(64, 1))

    def forward(self, x):
        return self.head(self.dom(x).flatten(1)).squeeze(1)


def load(files):
    x = np.concatenate([np.load(f)["dom_features"] for f in files]).astype(np.float32)
    e = np.concatenate([np.load(f)["log10_energy"] for f in files]).astype(np.float32)
    w = np.concatenate([np.load(f)["oneweight"] for f in files]).astype(np.float32)
    w = w / w.mean()
    return torch.from_numpy(x), torch.from_numpy(e), torch.from_numpy(w)


def rank_slice(n, batch):
    """Contiguous block of events for this rank, cut to whole batches."""
    per = (n // hvd.size()) // batch * batch
    return slice(hvd.rank() * per, (hvd.rank() + 1) * per)


def save_checkpoint(path, model, opt, sched, epoch):
    tmp = path + ".part"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                "sched": sched.state_dict(), "epoch": epoch}, tmp)
    os.replace(tmp, path)


STOP = {"flag": False}


def _on_usr1(signum, frame):
    STOP["flag"] = True


def main():
    args = get_parser().parse_args()
    hvd.init()
    signal.signal(signal.SIGUSR1, _on_usr1)
    t_start = time.time()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    xtr, etr, wtr = load(args.train_files)
    xva, eva, wva = load(args.val_files)
    sl = rank_slice(len(etr), args.batch_size)
    xtr, etr, wtr = xtr[sl], etr[sl], wtr[sl]
    vs = rank_slice(len(eva), 1)
    xva, eva, wva = xva[vs], eva[vs], wva[vs]

    model = DOMSummaryNet(n_doms=xtr.shape[1], n_feat=xtr.shape[2]).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    n_steps = len(etr) // args.batch_size
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (args.warmup_epochs * n_steps)) *
        0.5 * (1 + math.cos(math.pi * min(s, args.epochs * n_steps) / (args.epochs * n_steps))))

    os.makedirs(args.run_dir, exist_ok=True)
    ckpt_path = os.path.join(args.run_dir, "checkpoint.pt")
    start_epoch = 0
    if os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        start_epoch = ck["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, args.epochs):
        model.train()
        perm = torch.randperm(len(etr))
        for i in range(n_steps):
            j = perm[i * args.batch_size:(i + 1) * args.batch_size]
            x, e, w = xtr[j].to(dev), etr[j].to(dev), wtr[j].to(dev)
            opt.zero_grad()
            loss = (w * nn.functional.smooth_l1_loss(model(x), e, reduction="none", beta=0.1)).mean()
            loss.backward()
            opt.step()
            sched.step()

        model.eval()
        with torch.no_grad():
            res = torch.cat([model(xva[k:k + 1024].to(dev)).cpu() - eva[k:k + 1024]
                             for k in range(0, len(eva), 1024)])
        res = hvd.allgather(res, name="val_residuals")
        q16, q50, q84 = np.percentile(res.numpy(), [16, 50, 84])
        if hvd.rank() == 0:
            print(f"epoch {epoch}: log10E resolution {(q84 - q16) / 2:.3f} bias {q50:+.3f} "
                  f"last loss {loss.item():.4f}", flush=True)

        save_checkpoint(ckpt_path, model, opt, sched, epoch)
        out_of_time = (time.time() - t_start) / 60 > args.time_limit_min - 10
        if hvd.broadcast_object(STOP["flag"] or out_of_time, root_rank=0, name="stop"):
            if hvd.rank() == 0:
                print("stopping before the wall-time limit; requeue to continue", flush=True)
            break


if __name__ == "__main__":
    main()
