#!/usr/bin/env python
"""Weak / strong scaling study of a small ResNet on CIFAR-10 (or synthetic images).

Typical use (see jobs/summit_sweep.lsf):

    for n in 1 2 4 8 16; do
        jsrun -n $n -a 1 -g 1 python bench.py --scaling weak --data synthetic --tag weak_$n
    done
"""
import argparse
import json
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from scaling.env import describe_job, set_cpu_threads
from scaling.data import make_loaders
from scaling.models import make_model
from scaling.timers import StepTimer, Throughput


def parse_args():
    p = argparse.ArgumentParser(description="ResNet scaling benchmark")
    p.add_argument("--data", default="synthetic", choices=["synthetic", "cifar10"])
    p.add_argument("--data-dir", default=os.environ.get("DATA_DIR", "./data"))
    p.add_argument("--scaling", default="weak", choices=["weak", "strong"],
                   help="weak: --batch-size is per rank; strong: --batch-size is the global batch")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--base-lr", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--threads", type=int, default=0, help="intra-op threads, 0 = cores / local ranks")
    p.add_argument("--out", default="runs")
    p.add_argument("--tag", default=None)
    p.add_argument("--no-cuda", action="store_true")
    return p.parse_args()


def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1)
    seen = torch.zeros(1)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            pred = model(x).argmax(dim=1)
            correct += (pred == y).sum().item()
            seen += y.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name="eval.correct")
    seen = hvd.allreduce(seen, op=hvd.Sum, name="eval.seen")
    return (correct / seen).item()


def main():
    args = parse_args()
    hvd.init()
    job = describe_job()
    set_cpu_threads(args.threads)

    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(job.local_rank)
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(20)

    if args.scaling == "weak":
        per_rank_batch = args.batch_size
        lr = args.base_lr * job.size
    else:
        per_rank_batch = max(1, args.batch_size // job.size)
        lr = args.base_lr
    global_batch = per_rank_batch * job.size

    train_loader, test_loader, train_sampler = make_loaders(
        args.data, args.data_dir, per_rank_batch, job.rank, job.size)

    model = make_model(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=5e-4, nesterov=True)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer,
                                         named_parameters=model.named_parameters(),
                                         compression=compression)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    tag = args.tag or f"{args.scaling}_n{job.size}"
    run_dir = os.path.join(args.out, tag)
    rank_dir = os.path.join(run_dir, f"rank{job.rank:04d}")
    os.makedirs(rank_dir, exist_ok=True)
    timer = StepTimer(os.path.join(rank_dir, "steps.csv"), sync_cuda=use_cuda)
    meter = Throughput()

    if job.is_root:
        print(f"[{tag}] ranks={job.size} nodes={job.nodes} per_rank_batch={per_rank_batch} "
              f"global_batch={global_batch} lr={lr:.4f}", flush=True)

    summary = []
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        meter.reset()
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with timer.step(epoch, step):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
            meter.add(x.size(0), timer.last)
        img_s = hvd.allreduce(torch.tensor(meter.rate()), op=hvd.Sum, name="img_per_s").item()
        acc = evaluate(model, test_loader, device)
        if job.is_root:
            print(f"epoch {epoch}: {img_s:.1f} img/s total, test acc {acc:.4f}", flush=True)
            summary.append({"epoch": epoch, "img_per_s": img_s, "test_acc": acc})
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict()},
                       os.path.join(run_dir, "checkpoint.pt"))
    timer.close()

    if job.is_root:
        with open(os.path.join(run_dir, "summary.json"), "w") as fh:
            json.dump({"ranks": job.size, "scaling": args.scaling,
                       "global_batch": global_batch, "epochs": summary}, fh, indent=2)


if __name__ == "__main__":
    main()
