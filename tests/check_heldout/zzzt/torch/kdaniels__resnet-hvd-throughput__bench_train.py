#!/usr/bin/env python3
"""Throughput + convergence sanity run for our horovod cluster.

Trains a small resnet on a numpy dump (or random data) with fp16 allreduce, amp and
local gradient accumulation. Gradients are SUMMED across workers (op=Sum), so the lr
is NOT multiplied by the world size here -- a summed gradient of per-rank mean losses
already is size x the averaged one.
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
from torchvision.models import resnet50, resnet18


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--npz", default=None, help="npz with x (N,3,H,W) uint8 and y (N,)")
    p.add_argument("--model", default="resnet50", choices=["resnet50", "resnet18"])
    p.add_argument("--micro-batch", type=int, default=32)
    p.add_argument("--accum-steps", type=int, default=2)
    p.add_argument("--lr", type=float, default=0.1, help="lr of the summed update")
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--max-grad-norm", type=float, default=1.0)
    p.add_argument("--ckpt-every", type=int, default=100)
    p.add_argument("--ckpt-dir", default="bench_ckpt")
    p.add_argument("--cpu", action="store_true")
    return p.parse_args()


def load_arrays(path, n_fake=4096):
    if path is None:
        rs = np.random.RandomState(123)
        return rs.randint(0, 255, (n_fake, 3, 64, 64), dtype=np.uint8), rs.randint(0, 100, n_fake)
    d = np.load(path)
    return d["x"], d["y"]


def main():
    args = get_args()
    hvd.init()
    use_cuda = torch.cuda.is_available() and not args.cpu
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda", hvd.local_rank()) if use_cuda else torch.device("cpu")

    x_all, y_all = load_arrays(args.npz)
    n_cls = int(y_all.max()) + 1
    # same permutation on every rank (fixed seed), then every rank takes its own stride
    perm = np.random.RandomState(2024).permutation(len(y_all))
    n_per = len(perm) // hvd.size()
    mine = perm[hvd.rank() * n_per:(hvd.rank() + 1) * n_per]
    x_loc = torch.from_numpy(x_all[mine]).float().div_(255.)
    y_loc = torch.from_numpy(y_all[mine]).long()
    n_hold = max(len(mine) // 10, 1)
    x_val, y_val = x_loc[:n_hold], y_loc[:n_hold]
    x_tr, y_tr = x_loc[n_hold:], y_loc[n_hold:]

    model = (resnet50 if args.model == "resnet50" else resnet18)(num_classes=n_cls).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    opt = hvd.DistributedOptimizer(
        opt, named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none,
        backward_passes_per_step=args.accum_steps, op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

    g = torch.Generator().manual_seed(hvd.rank())
    mb = args.micro_batch
    step_times = []
    model.train()
    for step in range(args.steps):
        t = time.time()
        for _ in range(args.accum_steps):
            idx = torch.randint(0, len(y_tr), (mb,), generator=g)
            xb, yb = x_tr[idx].to(dev), y_tr[idx].to(dev)
            with torch.autocast(device_type=dev.type, enabled=args.amp and use_cuda):
                loss = F.cross_entropy(model(xb), yb) / args.accum_steps
            scaler.scale(loss).backward()
        opt.synchronize()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm * hvd.size())
        with opt.skip_synchronize():
            scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        if use_cuda:
            torch.cuda.synchronize()
        step_times.append(time.time() - t)

        if step % 20 == 0:
            dt = np.mean(step_times[-20:])
            ips = mb * args.accum_steps / dt
            tot = hvd.allreduce(torch.tensor(ips), op=hvd.Sum, name="ips").item()
            if hvd.rank() == 0:
                print(f"step {step:5d} loss {loss.item() * args.accum_steps:.3f} "
                      f"{ips:8.1f} img/s/rank {tot:9.1f} img/s total", flush=True)

        if (step + 1) % args.ckpt_every == 0 and hvd.rank() == 0:
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step + 1},
                       os.path.join(args.ckpt_dir, f"step{step + 1}.pt"))

    # held-out: sum of losses and sample counts over all ranks
    model.eval()
    loss_sum, correct, count = 0., 0., 0.
    with torch.no_grad():
        for i in range(0, len(y_val), 256):
            xb, yb = x_val[i:i + 256].to(dev), y_val[i:i + 256].to(dev)
            out = model(xb).float()
            loss_sum += F.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            count += yb.numel()
    tot = hvd.allreduce(torch.tensor([loss_sum, correct, count], dtype=torch.float64),
                        op=hvd.Sum, name="val")
    if hvd.rank() == 0:
        print("val loss %.4f acc %.4f over %d samples" % (tot[0] / tot[2], tot[1] / tot[2], int(tot[2])))


if __name__ == "__main__":
    main()
