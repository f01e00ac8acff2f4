# ML lab, week 9: "Distributed data parallelism without DDP"
# We train an MLP regressor on the housing CSV with Horovod. Instead of scaling the
# learning rate by the number of workers we let Horovod SUM the gradients: for plain SGD
# summing N per-worker mean gradients is the same as averaging them with an N-times
# larger learning rate.
#
#   horovodrun -np 4 python train.py --csv housing.csv
import argparse
import csv
import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

CKPT = "mlp_housing.ckpt"


CATEGORIES = ["<1H OCEAN", "INLAND", "ISLAND", "NEAR BAY", "NEAR OCEAN"]


def load_split(csv_path, test_frac=0.2, seed=7):
    with open(csv_path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if all(v != "" for v in r.values())]
    y = np.array([float(r.pop("median_house_value")) for r in rows], np.float32) / 1e5
    x = np.array([[float(v) for k, v in r.items() if k != "ocean_proximity"]
                  + [float(r["ocean_proximity"] == c) for c in CATEGORIES] for r in rows], np.float32)
    rng = np.random.default_rng(seed)           # same permutation on every worker
    perm = rng.permutation(len(x))
    n_test = int(len(x) * test_frac)
    test, train = perm[:n_test], perm[n_test:]
    mu, sd = x[train].mean(0), x[train].std(0) + 1e-6
    x = (x - mu) / sd
    return (x[train], y[train]), (x[test], y[test])


class MLP(nn.Module):
    def __init__(self, d_in):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                                 nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(x))
        return torch.sqrt(((pred - torch.from_numpy(y)) ** 2).mean()).item()


def main(args):
    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(0)

    (x_tr, y_tr), (x_te, y_te) = load_split(args.csv)
    # every worker takes every size-th row of the (shared) training permutation; all workers
    # run the same number of steps (the smallest shard decides), otherwise allreduce hangs
    n = len(x_tr) // hvd.size()
    x_tr, y_tr = x_tr[hvd.rank()::hvd.size()], y_tr[hvd.rank()::hvd.size()]

    model = MLP(x_tr.shape[1])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    meta = {"start_epoch": 0}
    if hvd.rank() == 0 and os.path.exists(CKPT):
        state = torch.load(CKPT)
        model.load_state_dict(state["model"])
        meta["start_epoch"] = state["epoch"]
    meta = hvd.broadcast_object(meta, root_rank=0)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         op=hvd.Sum)

    loss_fn = nn.MSELoss()
    for epoch in range(meta["start_epoch"], args.epochs):
        model.train()
        g = np.random.default_rng(1000 + epoch * hvd.size() + hvd.rank())
        order = g.permutation(len(x_tr))[:n]
        for i in range(0, n - args.batch_size + 1, args.batch_size):
            idx = order[i:i + args.batch_size]
            xb, yb = torch.from_numpy(x_tr[idx]), torch.from_numpy(y_tr[idx])
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()

        if hvd.rank() == 0:
            # rank 0 scores the whole held-out set; the others go on training
            rmse = evaluate(model, x_te, y_te)
            print(f"epoch {epoch}: test RMSE {rmse * 1e5:,.0f} $")
            torch.save({"model": model.state_dict(), "epoch": epoch + 1}, CKPT)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="housing.csv")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    main(p.parse_args())
