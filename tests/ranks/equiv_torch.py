"""Rank script: data-parallel training with hvdkit.torch, then the same steps sequentially on rank 0.

Prints `MAXREL <opt> <shuffle> <value>` (max relative weight difference vs sequential training with
batch size*b over the same sample order) and `HASH <rank> <sha>` of the final weights.
"""
import argparse
import hashlib

import torch

import hvdkit.torch as hk

N, D, C = 96, 6, 3


def data():
    g = torch.Generator().manual_seed(7)
    x = torch.randn(N, D, generator=g)
    y = torch.randint(0, C, (N,), generator=g)
    return torch.utils.data.TensorDataset(x, y)


def model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(D, 16), torch.nn.Tanh(), torch.nn.Linear(16, C))


def make_opt(name, params):
    return torch.optim.SGD(params, lr=0.1, momentum=0.9) if name == "sgd" else torch.optim.Adam(params, lr=0.01)


def flat(m):
    return torch.cat([p.detach().reshape(-1) for p in m.parameters()])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=2)
    args = ap.parse_args()
    run(hk.init(seed=0, threads=1), args.batch, args.epochs)


def run(ctx, batch, epochs=2):
    """Every case in turn; also one of the checks of steps_torch.py's shared launch (tests/steps.py)."""
    ds = data()
    loss_fn = torch.nn.CrossEntropyLoss()
    for opt_name in ("sgd", "adam"):
        for shuffle in (False, True):
            net = model(seed=100 + ctx.rank)  # deliberately different on each rank: broadcast must fix it
            opt = hk.distributed_optimizer(make_opt(opt_name, net.parameters()), net)
            hk.broadcast_state(net, opt)
            loader = hk.shard(ds, batch, shuffle=shuffle, seed=3)
            for epoch in range(epochs):
                loader.set_epoch(epoch)
                for x, y in loader:
                    opt.zero_grad()
                    loss_fn(net(x), y).backward()
                    opt.step()
            w = flat(net)
            print("HASH", ctx.rank, opt_name, shuffle, hashlib.sha256(w.numpy().tobytes()).hexdigest(), flush=True)
            if ctx.rank == 0:
                ref = sequential(ds, opt_name, shuffle, batch * ctx.size, epochs, loss_fn)
                rel = ((w - ref).abs().max() / ref.abs().max()).item()
                print("MAXREL", opt_name, shuffle, rel, flush=True)


def sequential(ds, opt_name, shuffle, global_batch, epochs, loss_fn):
    """Plain training, batch p*b, in the order DistributedSampler's global permutation defines."""
    net = model(seed=100)  # rank 0's initial weights, which the broadcast gave everyone
    opt = make_opt(opt_name, net.parameters())
    x_all, y_all = ds.tensors
    for epoch in range(epochs):
        if shuffle:
            g = torch.Generator().manual_seed(3 + epoch)
            order = torch.randperm(N, generator=g)
        else:
            order = torch.arange(N)
        for start in range(0, N, global_batch):
            idx = order[start:start + global_batch]
            opt.zero_grad()
            loss_fn(net(x_all[idx]), y_all[idx]).backward()
            opt.step()
    return flat(net)


if __name__ == "__main__":
    main()
