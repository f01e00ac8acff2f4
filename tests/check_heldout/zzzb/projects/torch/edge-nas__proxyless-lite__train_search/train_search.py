"""Latency-aware differentiable search (ProxylessNAS-style, softmax relaxation).

Alternates one weight step on a train batch and one alpha step on a held-out batch.
"""
import argparse
import json
import math
import os

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, random_split
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from engine.env import init_distributed, log
from proxyless import ProxylessSuperNet, LatencyTable, ArchStepper


def get_parser():
    parser = argparse.ArgumentParser("proxyless-lite")
    parser.add_argument("--data-root", default="/datasets/cifar10")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=96)
    parser.add_argument("--lr", type=float, default=0.025)
    parser.add_argument("--arch-lr", type=float, default=6e-3)
    parser.add_argument("--lat-weight", type=float, default=0.1)
    parser.add_argument("--target-ms", type=float, default=2.0)
    parser.add_argument("--lut", default="lut.json")
    parser.add_argument("--warmup-steps", type=int, default=500)
    parser.add_argument("--output", default="output/search")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def build_scheduler(optimizer, epochs, warmup_epochs, steps_per_epoch):
    total, warm = epochs * steps_per_epoch, warmup_epochs * steps_per_epoch

    def factor(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def main(args):
    rank, local_rank, world = init_distributed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize((0.5,) * 3, (0.25,) * 3)])
    full = torchvision.datasets.CIFAR10(args.data_root, train=True, transform=tf)
    w_set, a_set = random_split(full, [40000, 10000], generator=torch.Generator().manual_seed(0))
    w_sampler = DistributedSampler(w_set, num_replicas=world, rank=local_rank)
    a_sampler = DistributedSampler(a_set, num_replicas=world, rank=local_rank)
    w_loader = DataLoader(w_set, args.batch_size, sampler=w_sampler, num_workers=4, drop_last=True)
    a_loader = DataLoader(a_set, args.batch_size, sampler=a_sampler, num_workers=4, drop_last=True)

    model = ProxylessSuperNet().to(device)
    criterion = nn.CrossEntropyLoss()
    w_opt = torch.optim.SGD([p for _, p in model.named_weights()], lr=args.lr * world, momentum=0.9,
                            weight_decay=4e-5, nesterov=True)
    w_opt = hvd.DistributedOptimizer(w_opt, named_parameters=model.named_weights())
    scheduler = build_scheduler(w_opt, args.epochs, args.warmup_epochs, len(w_loader))
    arch = ArchStepper(model, LatencyTable(args.lut), args.arch_lr, args.lat_weight, args.target_ms)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(w_opt, root_rank=0)

    for epoch in range(args.epochs):
        w_sampler.set_epoch(epoch)
        a_sampler.set_epoch(epoch)
        model.train()
        ce_sum = torch.zeros(2)
        for (x, y), (xa, ya) in zip(w_loader, a_loader):
            x, y, xa, ya = x.to(device), y.to(device), xa.to(device), ya.to(device)
            w_opt.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            w_opt.step()
            scheduler.step()
            ce, lat = arch.step(xa, ya, criterion)
            ce_sum += torch.tensor([ce, 1.0])
        ce_sum = hvd.allreduce(ce_sum, op=hvd.Sum, name="arch_ce")
        log(f"epoch {epoch}: arch ce {ce_sum[0] / ce_sum[1]:.4f} expected latency {lat:.3f} ms "
            f"ops {model.export()}")

        if rank == 0:
            os.makedirs(args.output, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict()}, os.path.join(args.output, "supernet.pt"))
            with open(os.path.join(args.output, "arch.json"), "w") as f:
                json.dump({"epoch": epoch, "ops": model.export(), "latency_ms": lat}, f)


if __name__ == "__main__":
    main(get_parser().parse_args())
