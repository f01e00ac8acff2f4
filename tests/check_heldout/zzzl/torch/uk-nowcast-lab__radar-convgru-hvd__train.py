#!/usr/bin/env python3
# Radar precipitation nowcasting (ConvGRU encoder-forecaster), 5-min composites on a 1 km grid.
#
# Two ways to run:
#   horovodrun -np 8 -H n1:4,n2:4 python train.py --cfg radar.yaml        (launcher starts the ranks)
#   python train.py --cfg radar.yaml --np 4                                 (horovod.run from here, one node)
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

import horovod
import horovod.torch as hvd

BASE = dict(
    frames="/data/radar/composite_2016_2021.npy",   # (T, H, W) rain rate mm/h, uint16 * 0.01
    split_time=180000,
    n_in=4,
    n_out=6,
    batch=6,
    hidden=64,
    lr=0.01,
    momentum=0.9,
    steps=20000,
    ckpt_every=1000,
    ckpt_dir="ckpt",
    eval_every=2000,
    eval_samples=256,
    thresholds=[0.5, 2.0, 8.0],
)


class ConvGRUCell(nn.Module):
    def __init__(self, cin, ch):
        super().__init__()
        self.gates = nn.Conv2d(cin + ch, 2 * ch, 3, padding=1)
        self.cand = nn.Conv2d(cin + ch, ch, 3, padding=1)
        self.ch = ch

    def forward(self, x, h):
        if h is None:
            h = x.new_zeros(x.shape[0], self.ch, *x.shape[-2:])
        z, r = torch.sigmoid(self.gates(torch.cat([x, h], 1))).chunk(2, 1)
        c = torch.tanh(self.cand(torch.cat([x, r * h], 1)))
        return (1 - z) * h + z * c


class Nowcaster(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.enc = ConvGRUCell(1, hidden)
        self.dec = ConvGRUCell(1, hidden)
        self.head = nn.Conv2d(hidden, 1, 1)

    def forward(self, past, n_out):
        h = None
        for t in range(past.shape[1]):
            h = self.enc(past[:, t:t + 1], h)
        x = past[:, -1:]
        outs = []
        for _ in range(n_out):
            h = self.dec(x, h)
            x = F.softplus(self.head(h))  # autoregressive: feed own forecast back
            outs.append(x)
        return torch.cat(outs, 1)


def to_rate(a):
    return np.log1p(a.astype(np.float32) * 0.01)


def my_times(n_total, n_in, n_out, rank, size, rng):
    # identical permutation on every rank (same rng seed), then equal contiguous blocks
    t = np.arange(n_in, n_total - n_out)
    rng.shuffle(t)
    per = len(t) // size
    return t[rank * per:(rank + 1) * per]


def batch_at(frames, ts, n_in, n_out):
    past = np.stack([to_rate(frames[t - n_in:t]) for t in ts])
    fut = np.stack([to_rate(frames[t:t + n_out]) for t in ts])
    return torch.from_numpy(past), torch.from_numpy(fut)


def train_worker(cfg):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device("cuda")
    else:
        dev = torch.device("cpu")
    rank, size = hvd.rank(), hvd.size()

    frames = np.load(cfg["frames"], mmap_mode="r")
    rng = np.random.RandomState(1)
    train_t = my_times(cfg["split_time"], cfg["n_in"], cfg["n_out"], rank, size, rng)
    eval_t = my_times(frames.shape[0] - cfg["split_time"], cfg["n_in"], cfg["n_out"], rank, size,
                      np.random.RandomState(2))[: cfg["eval_samples"] // size] + cfg["split_time"]

    model = Nowcaster(cfg["hidden"]).to(dev)
    # gradients are summed over ranks (op=Sum): with plain SGD the effective step is size * lr,
    # i.e. the usual linear scaling, so no extra factor here
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"], nesterov=True)

    step = 0
    ck_path = os.path.join(cfg["ckpt_dir"], "last.pt")
    if os.path.exists(ck_path):
        ck = torch.load(ck_path, map_location="cpu", weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step = ck["step"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    step = hvd.broadcast_object(step, root_rank=0)

    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)

    B = cfg["batch"]
    nb = len(train_t) // B
    t0 = time.time()
    while step < cfg["steps"]:
        i = step % nb
        if i == 0:
            np.random.RandomState(step).shuffle(train_t)
        past, fut = batch_at(frames, train_t[i * B:(i + 1) * B], cfg["n_in"], cfg["n_out"])
        past, fut = past.to(dev), fut.to(dev)
        opt.zero_grad()
        pred = model(past, cfg["n_out"])
        loss = F.l1_loss(pred, fut) + F.mse_loss(pred, fut)
        loss.backward()
        opt.step()
        step += 1

        if step % 50 == 0 and rank == 0:
            print("step %d loss %.4f %.2fs/it" % (step, loss.item(), (time.time() - t0) / 50), flush=True)
            t0 = time.time()

        if step % cfg["eval_every"] == 0:
            evaluate(model, frames, eval_t, cfg, dev, rank)

        if step % cfg["ckpt_every"] == 0 and rank == 0:
            os.makedirs(cfg["ckpt_dir"], exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, ck_path + ".tmp")
            os.replace(ck_path + ".tmp", ck_path)


@torch.no_grad()
def evaluate(model, frames, eval_t, cfg, dev, rank):
    model.eval()
    th = cfg["thresholds"]
    # hits, misses, false alarms per threshold, plus squared error and pixel count
    acc = torch.zeros(3 * len(th) + 2, dtype=torch.float64)
    for j in range(0, len(eval_t), cfg["batch"]):
        past, fut = batch_at(frames, eval_t[j:j + cfg["batch"]], cfg["n_in"], cfg["n_out"])
        pred = model(past.to(dev), cfg["n_out"]).cpu()
        r_pred, r_obs = torch.expm1(pred), torch.expm1(fut)
        for k, thr in enumerate(th):
            p, o = r_pred >= thr, r_obs >= thr
            acc[3 * k] += (p & o).sum()
            acc[3 * k + 1] += (~p & o).sum()
            acc[3 * k + 2] += (p & ~o).sum()
        acc[-2] += ((pred - fut) ** 2).sum()
        acc[-1] += fut.numel()
    acc = hvd.allreduce(acc, op=hvd.Sum, name="eval_counts")
    if rank == 0:
        csi = [(acc[3 * k] / (acc[3 * k] + acc[3 * k + 1] + acc[3 * k + 2]).clamp(min=1)).item()
               for k in range(len(th))]
        print("eval rmse(log) %.4f  CSI %s" % ((acc[-2] / acc[-1]).sqrt().item(),
                                               " ".join("%.3f@%g" % (c, t) for c, t in zip(csi, th))),
              flush=True)
    model.train()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=None)
    ap.add_argument("--np", type=int, default=0, help="if >0, spawn this many local ranks with horovod.run")
    a = ap.parse_args()
    cfg = dict(BASE)
    if a.cfg:
        with open(a.cfg) as f:
            cfg.update(yaml.safe_load(f))
    if a.np > 0:
        horovod.run(train_worker, args=(cfg,), np=a.np, use_gloo=True)
    else:
        train_worker(cfg)


if __name__ == "__main__":
    main()
