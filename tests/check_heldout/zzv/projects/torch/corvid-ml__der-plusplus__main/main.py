#!/usr/bin/env python3
"""DER++ on Seq-MNIST / Seq-CIFAR with Horovod data parallelism."""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from der.buffer import LogitBuffer
from der.backbone import mlp
from der.tasks import class_incremental, partition
from der import hvd_utils


class Experiment:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
        d = np.load(args.dataset)
        self.xtr, self.ytr = d["x_train"].astype(np.float32) / 255, d["y_train"].astype(np.int64)
        self.xte, self.yte = d["x_test"].astype(np.float32) / 255, d["y_test"].astype(np.int64)
        self.tasks = class_incremental(self.ytr, args.n_tasks)
        n_cls = int(self.ytr.max()) + 1
        self.net = mlp(int(np.prod(self.xtr.shape[1:])), n_cls).to(self.device)
        opt = torch.optim.SGD(self.net.parameters(), lr=args.lr)
        self.opt = hvd.DistributedOptimizer(opt, named_parameters=self.net.named_parameters(),
                                            op=hvd.Average)
        # linear warm-up from lr to lr * world over the first steps of each task
        self.target_scale = hvd.size()
        self.buffer = LogitBuffer(args.buffer_size, self.xtr.shape[1:], n_cls, seed=args.seed + hvd.rank())

    def set_lr(self, step_in_task):
        w = min(1.0, (step_in_task + 1) / self.args.warmup_steps)
        for g in self.opt.param_groups:
            g["lr"] = self.args.lr * (1 + w * (self.target_scale - 1))

    def observe(self, x, y):
        a = self.args
        self.opt.zero_grad()
        out = self.net(x)
        loss = F.cross_entropy(out, y)
        r1, r2 = self.buffer.draw(a.minibatch), self.buffer.draw(a.minibatch)
        if r1 is not None:
            loss = loss + a.alpha * F.mse_loss(self.net(r1[0].to(self.device)), r1[2].to(self.device))
            loss = loss + a.beta * F.cross_entropy(self.net(r2[0].to(self.device)), r2[1].to(self.device))
        loss.backward()
        self.opt.step()
        self.buffer.add(x.cpu(), y.cpu(), out.detach().cpu())
        return loss.item()

    @torch.no_grad()
    def evaluate(self, upto):
        self.net.eval()
        accs = []
        for k in range(upto + 1):
            idx = np.flatnonzero(np.isin(self.yte, self.tasks[k]))
            mine = partition(idx, hvd.rank(), hvd.size(), seed=self.args.seed)
            x = torch.from_numpy(self.xte[mine]).to(self.device)
            pred = self.net(x).argmax(1).cpu().numpy()
            # equal-sized parts on every worker, so the mean of means is the mean
            accs.append(hvd_utils.average((pred == self.yte[mine]).mean(), f"acc_t{k}"))
        self.net.train()
        return accs

    def run(self):
        a = self.args
        ckpt = os.path.join(a.out, "der.pt")
        meta = hvd_utils.restore(self.net, self.opt, ckpt if a.resume else None)
        for t in range(meta["task"], len(self.tasks)):
            idx = np.flatnonzero(np.isin(self.ytr, self.tasks[t]))
            for epoch in range(a.n_epochs):
                mine = partition(idx, hvd.rank(), hvd.size(), seed=a.seed + 31 * t + epoch)
                for s in range(0, len(mine) - a.batch_size + 1, a.batch_size):
                    j = mine[s:s + a.batch_size]
                    self.set_lr(epoch * (len(mine) // a.batch_size) + s // a.batch_size)
                    loss = self.observe(torch.from_numpy(self.xtr[j]).to(self.device),
                                        torch.from_numpy(self.ytr[j]).to(self.device))
            accs = self.evaluate(t)
            if hvd.rank() == 0:
                print(f"[task {t + 1}/{len(self.tasks)}] last loss {loss:.4f} "
                      f"class-il acc {np.mean(accs) * 100:.2f}  per task {np.round(accs, 3).tolist()}")
            hvd_utils.save(self.net, self.opt, {"task": t + 1, "step": 0}, ckpt)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--dataset", default="data/seq_mnist.npz")
    p.add_argument("--n-tasks", type=int, default=5)
    p.add_argument("--n-epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--minibatch", type=int, default=32)
    p.add_argument("--buffer-size", type=int, default=500)
    p.add_argument("--lr", type=float, default=0.03)
    p.add_argument("--warmup-steps", type=int, default=100)
    p.add_argument("--alpha", type=float, default=0.3)
    p.add_argument("--beta", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", default="runs")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


if __name__ == "__main__":
    hvd.init()
    args = parse()
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    Experiment(args).run()
