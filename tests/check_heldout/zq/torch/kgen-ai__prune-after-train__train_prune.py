"""
Train a tabular MLP, then prune it (global L1 magnitude) and fine-tune the sparse net.

Stages are driven by a small JSON file, e.g.

    {"train": {"epochs": 30, "lr": 0.002},
     "prune": {"amount": 0.6, "rounds": 3, "epochs_per_round": 4, "lr": 0.0005}}

Run:  horovodrun -np 4 -H node1:2,node2:2 python train_prune.py --data data/credit.npz --stages stages.json
"""
import argparse
import json
import logging
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.utils.prune as prune
import horovod.torch as hvd

logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)

DEFAULT_STAGES = {
    "train": {"epochs": 30, "lr": 2e-3},
    "prune": {"amount": 0.5, "rounds": 2, "epochs_per_round": 3, "lr": 5e-4},
}


class MLP(nn.Module):
    def __init__(self, n_in, hidden=(256, 128, 64), n_out=2, p=0.1):
        super().__init__()
        layers, d = [], n_in
        for h in hidden:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(p)]
            d = h
        layers.append(nn.Linear(d, n_out))
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return self.body(x)


def my_shard(n, seed):
    # same permutation everywhere, equal-length strided shards
    perm = np.random.RandomState(seed).permutation(n)
    perm = perm[: n - n % hvd.size()]
    return perm[hvd.rank()::hvd.size()]


def batches(x, y, idx, bs, rng):
    idx = idx[rng.permutation(len(idx))]
    for s in range(0, len(idx) - bs + 1, bs):
        b = idx[s:s + bs]
        yield x[b], y[b]


def run_epochs(model, opt, x, y, idx, args, epochs, tag, rng):
    crit = nn.CrossEntropyLoss()
    for ep in range(epochs):
        model.train()
        for xb, yb in batches(x, y, idx, args.batch_size, rng):
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
        acc = accuracy(model, x_val=args.x_val, y_val=args.y_val)
        if hvd.rank() == 0:
            logger.info("%s epoch %d  loss %.4f  val acc %.4f", tag, ep, loss.item(), acc)


@torch.no_grad()
def accuracy(model, x_val, y_val):
    model.eval()
    return (model(x_val).argmax(1) == y_val).float().mean().item()


def sparsity(model):
    zeros = total = 0
    for m in model.modules():
        if isinstance(m, nn.Linear):
            zeros += int((m.weight == 0).sum())
            total += m.weight.numel()
    return zeros / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--stages", default=None, help="JSON stage file")
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--out", default="artifacts")
    args = parser.parse_args()

    stages = DEFAULT_STAGES
    if args.stages:
        with open(args.stages) as f:
            stages = json.load(f)

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(4)

    d = np.load(args.data)
    x = torch.tensor(d["x_train"], dtype=torch.float32)
    y = torch.tensor(d["y_train"], dtype=torch.long)
    args.x_val = torch.tensor(d["x_val"], dtype=torch.float32)
    args.y_val = torch.tensor(d["y_val"], dtype=torch.long)
    idx = my_shard(len(x), seed=42)
    rng = np.random.RandomState(1000 + hvd.rank())

    model = MLP(x.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=stages["train"]["lr"] * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.parameters(), root_rank=0)

    run_epochs(model, opt, x, y, idx, args, stages["train"]["epochs"], "dense", rng)

    # ---- iterative global magnitude pruning + fine-tuning ----
    pcfg = stages["prune"]
    targets = [(m, "weight") for m in model.modules() if isinstance(m, nn.Linear)]
    per_round = 1 - (1 - pcfg["amount"]) ** (1.0 / pcfg["rounds"])
    for r in range(pcfg["rounds"]):
        prune.global_unstructured(targets, pruning_method=prune.L1Unstructured, amount=per_round)
        for g in opt.param_groups:
            g["lr"] = pcfg["lr"] * hvd.size()
        run_epochs(model, opt, x, y, idx, args, pcfg["epochs_per_round"], f"prune-r{r}", rng)
        if hvd.rank() == 0:
            logger.info("round %d sparsity %.3f", r, sparsity(model))

    for m, name in targets:
        prune.remove(m, name)

    if hvd.local_rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.out, "mlp_pruned.pt"))
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump({"sparsity": sparsity(model), "val_acc": accuracy(model, args.x_val, args.y_val)}, f)


if __name__ == "__main__":
    main()
