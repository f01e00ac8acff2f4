"""Query-by-committee active learning, data parallel over horovod ranks.

Gradients are *summed* over ranks (op=hvd.Sum) and the per-worker lr is NOT multiplied by
the world size: sum of N worker gradients with lr == average with N*lr, same thing.
"""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train.npz")
    ap.add_argument("--test", default="data/test.npz")
    ap.add_argument("--committee", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--start", type=int, default=500)
    ap.add_argument("--k", type=int, default=250)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--outdir", default="qbc_out")
    return ap.parse_args()


def make_member(d, c, seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(d, 64), nn.Tanh(), nn.Linear(64, c))


def vote_entropy(votes, n_cls):
    # votes: M x N predicted labels
    M = votes.shape[0]
    cnt = torch.stack([(votes == c).sum(0) for c in range(n_cls)], 1).float() / M
    return -(cnt * torch.log(cnt + 1e-12)).sum(1)


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rank, world = hvd.rank(), hvd.size()

    tr = np.load(args.train)
    te = np.load(args.test)
    X = torch.tensor(tr["x"], dtype=torch.float32)
    Y = torch.tensor(tr["y"], dtype=torch.long)
    Xt = torch.tensor(te["x"], dtype=torch.float32)
    Yt = torch.tensor(te["y"], dtype=torch.long)
    n_cls = int(Y.max()) + 1

    order = np.random.RandomState(42).permutation(len(X))
    L = order[:args.start].tolist()
    U = order[args.start:].tolist()
    if rank == 0:
        os.makedirs(args.outdir, exist_ok=True)

    # test rows split by hand, the counts are summed below
    t_rows = torch.arange(len(Xt))[rank::world]

    history = []
    for rnd in range(args.rounds):
        members = []
        for m in range(args.committee):
            net = make_member(X.shape[1], n_cls, seed=1000 * rnd + m).to(dev)
            opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
            opt = hvd.DistributedOptimizer(
                opt, named_parameters=[("m%d.%s" % (m, n), p) for n, p in net.named_parameters()],
                op=hvd.Sum)
            hvd.broadcast_parameters(net.state_dict(), root_rank=0)

            # bootstrap sample of L (same on every rank), then every rank takes its own rows
            boot = np.random.RandomState(rnd * 31 + m).choice(L, size=len(L), replace=True)
            usable = len(boot) // world * world
            rows = torch.tensor(boot[:usable][rank::world])
            for ep in range(args.epochs):
                g = torch.Generator().manual_seed(ep)
                rows = rows[torch.randperm(len(rows), generator=g)]
                for i in range(0, len(rows), args.bs):
                    b = rows[i:i + args.bs]
                    opt.zero_grad()
                    loss = F.cross_entropy(net(X[b].to(dev)), Y[b].to(dev))
                    loss.backward()
                    opt.step()
            members.append(net)

        # committee accuracy (majority vote) on the test split
        with torch.no_grad():
            votes = torch.stack([net(Xt[t_rows].to(dev)).argmax(1).cpu() for net in members])
            maj = torch.mode(votes, 0).values
            stats = torch.tensor([(maj == Yt[t_rows]).sum().item(), len(t_rows)], dtype=torch.float64)
            stats = hvd.allreduce(stats, op=hvd.Sum, name="test_stats")
            acc = (stats[0] / stats[1]).item()
        history.append({"round": rnd, "labeled": len(L), "acc": acc})
        if rank == 0:
            print(json.dumps(history[-1]))
            for m, net in enumerate(members):
                torch.save(net.state_dict(), os.path.join(args.outdir, "r%02d_member%d.pt" % (rnd, m)))
            with open(os.path.join(args.outdir, "sets_r%02d.json" % rnd), "w") as f:
                json.dump({"L": L, "U": U}, f)

        # disagreement on the pool: each rank votes on a slice, gathered
        U_t = torch.tensor(U)
        mine = U_t[rank::world]
        with torch.no_grad():
            v = torch.stack([net(X[mine].to(dev)).argmax(1).cpu() for net in members])
        ent = vote_entropy(v, n_cls)
        ent_all = hvd.allgather(ent, name="ent_%d" % rnd)
        idx_all = hvd.allgather(mine, name="uidx_%d" % rnd)
        pick = idx_all[torch.argsort(ent_all, descending=True, stable=True)[:args.k]].tolist()
        L = L + pick
        ps = set(pick)
        U = [u for u in U if u not in ps]

    if rank == 0:
        with open(os.path.join(args.outdir, "history.json"), "w") as f:
            json.dump(history, f, indent=1)


if __name__ == "__main__":
    main()
