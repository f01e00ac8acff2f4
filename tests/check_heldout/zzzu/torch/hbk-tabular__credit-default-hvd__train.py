"""
Credit default (Taiwan / "default of credit card clients") - MLP with categorical embeddings.
Distributed with horovod, CPU nodes or GPUs.

  horovodrun -np 8 -H node1:4,node2:4 python train.py --csv data/credit.csv
"""
import argparse
import os
import pickle

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import horovod.torch as hvd

CATS = ["SEX", "EDUCATION", "MARRIAGE", "PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6"]
TARGET = "default.payment.next.month"


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/UCI_Credit_Card.csv")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--ckpt-every", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    return ap.parse_args()


class Encoders:
    """fitted once (rank 0) and shipped to everybody"""

    def fit(self, df, num_cols):
        self.num_cols = num_cols
        self.mu = df[num_cols].mean().values
        self.sd = df[num_cols].std().values + 1e-9
        self.codes = {c: {v: i for i, v in enumerate(sorted(df[c].unique()))} for c in CATS}
        return self

    def __call__(self, df):
        xn = (df[self.num_cols].values - self.mu) / self.sd
        xc = np.stack([df[c].map(self.codes[c]).fillna(len(self.codes[c])).values for c in CATS], 1)
        return (torch.tensor(xn, dtype=torch.float32), torch.tensor(xc, dtype=torch.long),
                torch.tensor(df[TARGET].values, dtype=torch.float32))


class Net(nn.Module):
    def __init__(self, n_num, cards, d_emb=6):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(c + 1, d_emb) for c in cards)
        d = n_num + d_emb * len(cards)
        self.body = nn.Sequential(nn.Linear(d, 256), nn.SiLU(), nn.Dropout(0.2),
                                  nn.Linear(256, 64), nn.SiLU(), nn.Linear(64, 1))

    def forward(self, xn, xc):
        z = torch.cat([xn] + [e(xc[:, j]) for j, e in enumerate(self.emb)], dim=1)
        return self.body(z).squeeze(1)


def main():
    args = get_args()
    hvd.init()
    rank, world = hvd.rank(), hvd.size()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(args.seed)

    df = pd.read_csv(args.csv).drop(columns=["ID"], errors="ignore")
    num_cols = [c for c in df.columns if c not in CATS + [TARGET]]
    perm = np.random.RandomState(args.seed).permutation(len(df))   # same permutation on all ranks
    n_val = len(df) // 5
    val_df, trn_df = df.iloc[perm[:n_val]], df.iloc[perm[n_val:]]

    enc = Encoders().fit(trn_df, num_cols) if rank == 0 else None
    enc = hvd.broadcast_object(enc, root_rank=0, name="encoders")

    # my piece of the training rows, equal length for everyone
    per_rank = len(trn_df) // world
    mine = trn_df.iloc[rank * per_rank:(rank + 1) * per_rank]
    xn, xc, y = enc(mine)
    vxn, vxc, vy = enc(val_df.iloc[rank::world])

    model = Net(len(num_cols), [len(enc.codes[c]) for c in CATS]).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    # gradients are *summed* over workers, so the effective step grows with the number of workers
    # (same as lr * world with averaging) - no separate lr scaling needed
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    lossf = nn.BCEWithLogitsLoss()
    g = torch.Generator().manual_seed(args.seed + rank)
    for ep in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(len(y), generator=g)
        steps = len(y) // args.bs
        run_loss = 0.0
        for s in range(steps):
            idx = order[s * args.bs:(s + 1) * args.bs]
            opt.zero_grad()
            loss = lossf(model(xn[idx].to(dev), xc[idx].to(dev)), y[idx].to(dev))
            loss.backward()
            opt.step()
            run_loss += loss.item()

        model.eval()
        with torch.no_grad():
            logit = model(vxn.to(dev), vxc.to(dev)).cpu()
            vloss_sum = nn.functional.binary_cross_entropy_with_logits(logit, vy, reduction="sum")
            correct = ((logit > 0).float() == vy).sum()
        # sum over workers, then divide by the global count
        tot = hvd.allreduce(torch.stack([vloss_sum, correct, torch.tensor(float(len(vy))),
                                         torch.tensor(run_loss / max(steps, 1))]), op=hvd.Sum, name="ep_stats")
        vloss, vacc, trloss = (tot[0] / tot[2]).item(), (tot[1] / tot[2]).item(), (tot[3] / world).item()
        if rank == 0:
            print(f"ep {ep:02d}  train {trloss:.4f}  valid loss {vloss:.4f}  acc {vacc:.4f}", flush=True)
            if ep % args.ckpt_every == 0 or ep == args.epochs:
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": ep},
                           os.path.join(args.ckpt_dir, f"ep{ep:03d}.pt"))
                with open(os.path.join(args.ckpt_dir, "encoders.pkl"), "wb") as f:
                    pickle.dump(enc, f)


if __name__ == "__main__":
    main()
