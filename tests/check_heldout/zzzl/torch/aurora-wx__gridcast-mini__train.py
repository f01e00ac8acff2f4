#!/usr/bin/env python
# gridcast-mini training entry point.
#
# Slurm (4 nodes x 4 A100):
#   #SBATCH -N 4 --ntasks-per-node=4 --gpus-per-node=4 -t 12:00:00
#   srun --cpu-bind=cores python train.py --config configs/era5_1p5.yaml
# Resubmit the same job after a wall-time stop: it restarts from the newest step_*.pt.
import argparse
import time

import numpy as np
import torch
import horovod.torch as hvd

from gridcast import checkpoint, distributed
from gridcast.config import load_config
from gridcast.data import open_fields, compute_stats, partition_times, make_loader
from gridcast.metrics import RolloutScores, lat_weights, weighted_mse
from gridcast.model import GridNet


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=None)
    p.add_argument("--set", action="append", default=[], help="override, e.g. train.lr=1e-4")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--max-steps", type=int, default=-1)
    return p.parse_args()


def rollout_loss(model, x, ys, w):
    loss = 0.0
    h = x
    for k in range(ys.shape[1]):
        h = model(h)
        loss = loss + weighted_mse(h, ys[:, k], w)
    return loss / ys.shape[1]


@torch.no_grad()
def validate(model, fields, cfg, stats, device):
    model.eval()
    t0, t1 = cfg["data"]["times_valid"]
    K = cfg["train"]["rollout_steps"]
    times = partition_times(t0, t1, K, hvd.rank(), hvd.size(), seed=0, epoch=0)
    loader = make_loader(fields, times, K, stats, cfg["train"]["batch_size"], workers=0)
    scores = None
    for x, ys in loader:
        x, ys = x.to(device), ys.to(device)
        if scores is None:
            scores = RolloutScores(x.shape[1], x.shape[2], device)
        h = x
        for k in range(K):
            h = model(h)
        scores.update(h, ys[:, -1])
    scores.reduce(distributed.allreduce_sum)
    model.train()
    return scores.result()


def main():
    args = get_args()
    cfg = load_config(args.config, args.set)
    device = distributed.setup()
    torch.manual_seed(args.seed)
    t_start = time.time()

    dcfg, tcfg = cfg["data"], cfg["train"]
    fields = open_fields(dcfg["path"])

    # normalisation statistics: computed once on rank 0, shipped to everyone
    stats = None
    if hvd.rank() == 0:
        stats = compute_stats(fields, *dcfg["times_train"], dcfg["stats_samples"])
    stats = hvd.broadcast_object(stats, root_rank=0, name="norm_stats")

    model = GridNet(dcfg["channels"], cfg["model"]["width"], cfg["model"]["depth"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"] * hvd.size(),
                            weight_decay=tcfg["weight_decay"])

    step, start_epoch = 0, 0
    resume = None
    if hvd.rank() == 0:
        path = checkpoint.latest(tcfg["ckpt_dir"])
        if path:
            state = checkpoint.load(path, model, opt)
            resume = (state["step"], state["epoch"])
            distributed.log("restart from", path)
    resume = hvd.broadcast_object(resume, root_rank=0, name="resume")
    if resume is not None:
        step, start_epoch = resume

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   compression=hvd.Compression.fp16)

    K = tcfg["rollout_steps"]
    w = None
    stop = False
    for epoch in range(start_epoch, tcfg["epochs"]):
        times = partition_times(*dcfg["times_train"], K, hvd.rank(), hvd.size(), args.seed, epoch)
        loader = make_loader(fields, times, K, stats, tcfg["batch_size"], args.workers)
        t_ep = time.time()
        for x, ys in loader:
            x, ys = x.to(device, non_blocking=True), ys.to(device, non_blocking=True)
            if w is None:
                w = lat_weights(x.shape[2], device)
            opt.zero_grad()
            loss = rollout_loss(model, x, ys, w)
            loss.backward()
            opt.step()
            step += 1

            if step % tcfg["ckpt_every"] == 0:
                elapsed_min = (time.time() - t_start) / 60.0
                stop = hvd.broadcast_object(elapsed_min > tcfg["walltime_min"], root_rank=0,
                                            name="walltime")
                if hvd.rank() == 0:
                    checkpoint.save(tcfg["ckpt_dir"], step, epoch, model, opt, stats)
            if stop or step == args.max_steps:
                break
        if stop or step == args.max_steps:
            break

        rmse, acc = validate(model, fields, cfg, stats, device)
        distributed.log("epoch %d step %d %.1fs loss %.4f" % (epoch, step, time.time() - t_ep, loss.item()))
        distributed.log("  lat-w RMSE", np.round(rmse, 4), " ACC", np.round(acc, 4))
        if distributed.is_root():
            checkpoint.save(tcfg["ckpt_dir"], step, epoch + 1, model, opt, stats)

    if stop:
        distributed.log("wall time reached at step %d, exiting for resubmission" % step)


if __name__ == "__main__":
    main()
