"""
tiny-imagenet style training, horovod, no DistributedSampler (we shard by hand so that
the order is reproducible from the seed + epoch alone).

    horovodrun -np 8 -H node1:4,node2:4 python train.py --steps-per-ckpt 500
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-train", type=int, default=4096)
    ap.add_argument("--n-val", type=int, default=512)
    ap.add_argument("--classes", type=int, default=200)
    ap.add_argument("--bs", type=int, default=32, help="per worker")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--steps-per-ckpt", type=int, default=500)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


class StepDecay:
    """keras-ish LearningRateSchedule, called with the global step"""
    def __init__(self, initial, decay_steps, rate=0.5):
        self.initial, self.decay_steps, self.rate = initial, decay_steps, rate

    def __call__(self, step):
        return self.initial * self.rate ** math.floor(step / self.decay_steps)


class Accuracy:
    def __init__(self):
        self.reset()

    def reset(self):
        self.correct = 0
        self.total = 0

    def update_state(self, logits, y):
        self.correct += (logits.argmax(-1) == y).sum().item()
        self.total += y.numel()

    def result(self):
        # sum counts over workers, shards are not the same size
        t = hvd.allreduce(torch.tensor([self.correct, self.total], dtype=torch.float64),
                          name="acc_counts", op=hvd.Sum)
        return (t[0] / t[1]).item()


def shard_indices(n, epoch, seed, rank, size):
    perm = np.random.RandomState(seed + epoch).permutation(n)
    return perm[rank::size]


def make_model(classes):
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(inplace=True),
        nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, classes))


def main():
    args = parse()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device("cuda", hvd.local_rank())
    else:
        dev = torch.device("cpu")
    torch.manual_seed(args.seed)

    rs = np.random.RandomState(1)
    X = torch.from_numpy(rs.randn(args.n_train, 3, 64, 64).astype("float32"))
    Y = torch.from_numpy(rs.randint(0, args.classes, args.n_train))
    Xv = torch.from_numpy(rs.randn(args.n_val, 3, 64, 64).astype("float32"))
    Yv = torch.from_numpy(rs.randint(0, args.classes, args.n_val))

    model = make_model(args.classes).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    # Sum instead of Average: the update is already hvd.size() times larger,
    # so args.lr is NOT multiplied by the number of workers here
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)

    steps_per_epoch = (args.n_train // hvd.size()) // args.bs
    sched = StepDecay(args.lr, decay_steps=10 * steps_per_epoch)
    step = 0
    acc = Accuracy()
    val_acc = Accuracy()

    for epoch in range(args.epochs):
        idx = shard_indices(args.n_train, epoch, args.seed, hvd.rank(), hvd.size())
        model.train()
        acc.reset()
        for b in range(steps_per_epoch):
            j = torch.from_numpy(idx[b * args.bs:(b + 1) * args.bs])
            x, y = X[j].to(dev), Y[j].to(dev)
            for g in opt.param_groups:
                g["lr"] = sched(step)
            opt.zero_grad()
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            loss.backward()
            opt.step()
            acc.update_state(logits.detach(), y)
            step += 1
            if step % args.steps_per_ckpt == 0 and hvd.rank() == 0:
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict()},
                           os.path.join(args.ckpt_dir, "step_%07d.pt" % step))

        # validation: each worker takes every size-th sample, counts are summed in result()
        model.eval()
        val_acc.reset()
        with torch.no_grad():
            vi = torch.arange(hvd.rank(), args.n_val, hvd.size())
            for k in range(0, len(vi), 256):
                j = vi[k:k + 256]
                val_acc.update_state(model(Xv[j].to(dev)), Yv[j].to(dev))
        tr, va = acc.result(), val_acc.result()
        if hvd.rank() == 0:
            print("epoch %d  lr %.4f  train_acc %.4f  val_acc %.4f" % (epoch, sched(step), tr, va))

    if hvd.rank() == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        torch.save({"step": step, "model": model.state_dict()}, os.path.join(args.ckpt_dir, "final.pt"))


if __name__ == "__main__":
    main()
