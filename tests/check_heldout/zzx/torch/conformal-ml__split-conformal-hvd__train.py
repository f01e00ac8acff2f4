"""Split conformal prediction (APS-free, LAC score) on top of an MLP classifier.

Train on the train split with Horovod, then compute the conformal threshold on the
calibration split and report empirical coverage / average set size on the test split.
Data: a .npz with X_train, y_train, X_cal, y_cal, X_test, y_test (e.g. covertype).
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def get_parser():
    p = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--data", default="data/covertype_splits.npz")
    p.add_argument("--alpha", type=float, default=0.1, help="target miscoverage")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--accum", type=int, default=2, help="micro-batches per allreduce")
    p.add_argument("--base-lr", type=float, default=3e-4)
    p.add_argument("--width", type=int, default=512)
    p.add_argument("--ckpt", default="ckpt/conformal_mlp.pt")
    p.add_argument("--resume", action="store_true")
    return p


def mlp(d_in, n_cls, width):
    return nn.Sequential(nn.Linear(d_in, width), nn.GELU(), nn.Linear(width, width), nn.GELU(),
                         nn.Linear(width, n_cls))


def shard(x, y, rank, size):
    # strided shard, trimmed so that every worker runs the same number of steps
    n = (len(x) // size) * size
    return x[rank:n:size], y[rank:n:size]


def conformal_quantile(scores, alpha):
    n = len(scores)
    level = min(1.0, math.ceil((n + 1) * (1 - alpha)) / n)
    return float(np.quantile(scores, level, method="higher"))


def train(args):
    hvd.init()
    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    root = hvd.rank() == 0

    d = np.load(args.data)
    n_cls = int(d["y_train"].max()) + 1
    x_tr, y_tr = shard(d["X_train"].astype(np.float32), d["y_train"].astype(np.int64), hvd.rank(), hvd.size())
    x_tr, y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)

    model = mlp(x_tr.shape[1], n_cls, args.width).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=args.base_lr * hvd.size(), weight_decay=1e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=args.accum)

    start = 0
    if args.resume:
        state = torch.load(args.ckpt, map_location="cpu") if root else None
        state = hvd.broadcast_object(state, root_rank=0, name="resume_state")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    g = torch.Generator().manual_seed(1000 + hvd.rank())
    steps = len(x_tr) // (args.batch_size * args.accum)
    for epoch in range(start, args.epochs):
        model.train()
        t = time.time()
        perm = torch.randperm(len(x_tr), generator=g)
        for s in range(steps):
            opt.zero_grad()
            for k in range(args.accum):
                idx = perm[(s * args.accum + k) * args.batch_size:(s * args.accum + k + 1) * args.batch_size]
                loss = F.cross_entropy(model(x_tr[idx].to(dev)), y_tr[idx].to(dev)) / args.accum
                loss.backward()
            opt.step()
        if root:
            print(f"epoch {epoch} loss {loss.item() * args.accum:.4f} ({time.time() - t:.1f}s)", flush=True)
            os.makedirs(os.path.dirname(args.ckpt) or ".", exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, args.ckpt)

    # ---- calibration: rank 0 scores the whole calibration split, everybody gets q_hat ----
    model.eval()
    qhat = None
    if root:
        with torch.no_grad():
            p_cal = model(torch.from_numpy(d["X_cal"].astype(np.float32)).to(dev)).softmax(-1).cpu()
        y_cal = torch.from_numpy(d["y_cal"].astype(np.int64))
        cal_scores = 1.0 - p_cal.gather(1, y_cal[:, None]).squeeze(1).numpy()
        qhat = conformal_quantile(cal_scores, args.alpha)
    qhat = hvd.broadcast_object(qhat, root_rank=0, name="qhat")

    # ---- test: each worker scores its shard, counts are summed ----
    x_te, y_te = shard(d["X_test"].astype(np.float32), d["y_test"].astype(np.int64), hvd.rank(), hvd.size())
    with torch.no_grad():
        p_te = model(torch.from_numpy(x_te).to(dev)).softmax(-1).cpu()
    sets = p_te >= (1.0 - qhat)
    y_te = torch.from_numpy(y_te)
    local = torch.tensor([sets[torch.arange(len(y_te)), y_te].sum().item(),
                          sets.sum().item(),
                          p_te.argmax(-1).eq(y_te).sum().item(),
                          float(len(y_te))], dtype=torch.float64)
    tot = hvd.allreduce(local, op=hvd.Sum, name="conformal_counts")
    if root:
        print(f"q_hat={qhat:.4f}  coverage={tot[0] / tot[3]:.4f} (target {1 - args.alpha:.2f})  "
              f"avg set size={tot[1] / tot[3]:.3f}  top-1 acc={tot[2] / tot[3]:.4f}")
        torch.save({"model": model.state_dict(), "qhat": qhat, "alpha": args.alpha},
                   os.path.splitext(args.ckpt)[0] + "_conformal.pt")


if __name__ == "__main__":
    train(get_parser().parse_args())
