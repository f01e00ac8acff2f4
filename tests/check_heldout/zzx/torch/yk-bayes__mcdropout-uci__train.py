# MC dropout on the UCI regression benchmarks (Gal & Ghahramani 2016), multi-GPU with Horovod.
#
#   horovodrun -np 2 python train.py --dataset data/uci/power-plant.npy --epochs 400
#
# The .npy file is a (N, D+1) float array, last column is the target.
import argparse
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


def parse_args():
    parser = argparse.ArgumentParser(description="MC dropout UCI")
    parser.add_argument("--dataset", default="data/uci/power-plant.npy")
    parser.add_argument("--split-seed", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=50)
    parser.add_argument("--dropout", type=float, default=0.05)
    parser.add_argument("--tau", type=float, default=1.0, help="model precision")
    parser.add_argument("--length-scale", type=float, default=1e-2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=400)
    parser.add_argument("--mc-samples", type=int, default=100)
    parser.add_argument("--save", default="checkpoints/mcdropout.pt")
    return parser.parse_args()


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class MCDropoutNet(nn.Module):
    def __init__(self, d_in, hidden, p):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
            nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def load_split(path, split_seed, test_frac=0.1):
    data = np.load(path).astype(np.float32)
    perm = np.random.RandomState(split_seed).permutation(len(data))
    n_test = int(round(test_frac * len(data)))
    test, train = data[perm[:n_test]], data[perm[n_test:]]
    x_mu, x_sd = train[:, :-1].mean(0), train[:, :-1].std(0) + 1e-6
    y_mu, y_sd = train[:, -1].mean(), train[:, -1].std() + 1e-6
    norm = lambda a: ((a[:, :-1] - x_mu) / x_sd, (a[:, -1] - y_mu) / y_sd)
    return norm(train), norm(test), (y_mu, y_sd)


@torch.no_grad()
def mc_predict(model, x, T):
    model.train()  # keep dropout on at test time
    return torch.stack([model(x) for _ in range(T)])


def gaussian_test_ll(samples, y, tau):
    # log (1/T sum_t N(y; f_t, 1/tau))
    T = samples.shape[0]
    ll = torch.logsumexp(-0.5 * tau * (y - samples) ** 2, dim=0) - math.log(T) \
        - 0.5 * math.log(2 * math.pi) + 0.5 * math.log(tau)
    return ll.mean()


def main():
    args = parse_args()
    set_seed(args.seed + hvd.rank())  # different dropout masks on every worker
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    (x_tr, y_tr), (x_te, y_te), (y_mu, y_sd) = load_split(args.dataset, args.split_seed)
    n_train = len(x_tr)
    # every worker takes an equal contiguous block of the (already shuffled) train split
    per = n_train // hvd.size()
    lo = hvd.rank() * per
    x_tr, y_tr = torch.from_numpy(x_tr[lo:lo + per]), torch.from_numpy(y_tr[lo:lo + per])
    x_te, y_te = torch.from_numpy(x_te).to(device), torch.from_numpy(y_te).to(device)

    model = MCDropoutNet(x_tr.shape[1], args.hidden, args.dropout).to(device)
    # weight decay from the dropout / GP prior; N is the full training set size
    wd = args.length_scale ** 2 * (1 - args.dropout) / (2.0 * n_train * args.tau)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), weight_decay=wd)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    loss_fn = nn.MSELoss()
    steps = per // args.batch_size
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(per)
        for i in range(steps):
            idx = order[i * args.batch_size:(i + 1) * args.batch_size]
            xb, yb = x_tr[idx].to(device), y_tr[idx].to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()

        if (epoch + 1) % 50 == 0 or epoch + 1 == args.epochs:
            # the whole test split is evaluated on every worker; rank 0 reports
            samples = mc_predict(model, x_te, args.mc_samples)
            rmse = ((samples.mean(0) - y_te) ** 2).mean().sqrt().item() * y_sd
            ll = gaussian_test_ll(samples * y_sd, y_te * y_sd, args.tau).item()
            if hvd.rank() == 0:
                print(f"epoch {epoch + 1:4d}  train mse {loss.item():.4f}  "
                      f"test rmse {rmse:.4f}  test ll {ll:.4f}")

    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.save) or ".", exist_ok=True)
        torch.save({"model": model.state_dict(), "args": vars(args),
                    "y_norm": (float(y_mu), float(y_sd))}, args.save)


if __name__ == "__main__":
    main()
