"""DeepFM on Criteo Kaggle day shards (pre-hashed .npz), horovod data parallel.

Each shard file:  x_int [N,13] float32, x_cat [N,26] int64 (already hashed), y [N]
    mpirun -np 4 python train.py --shards /data/criteo_kaggle/shards --epochs 2
"""
import argparse
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--shards", default="/data/criteo_kaggle/shards")
    p.add_argument("--val-shards", default="/data/criteo_kaggle/val")
    p.add_argument("--buckets", type=int, default=1000003)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--bs", type=int, default=4096)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--emb-lr", type=float, default=1e-2)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--save-dir", default="./fm_ckpt")
    p.add_argument("--emb-shards", type=int, default=0, help="0 -> one file per worker")
    return p.parse_args()


class DeepFM(nn.Module):
    def __init__(self, buckets, k, n_int=13, n_cat=26):
        super().__init__()
        self.first = nn.Embedding(buckets, 1)
        self.v = nn.Embedding(buckets, k)
        nn.init.normal_(self.v.weight, 0, 0.01)
        nn.init.zeros_(self.first.weight)
        self.int_lin = nn.Linear(n_int, 1)
        self.dnn = nn.Sequential(nn.Linear(n_cat * k + n_int, 256), nn.ReLU(),
                                 nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, xi, xc):
        v = self.v(xc)
        fm = 0.5 * ((v.sum(1) ** 2) - (v ** 2).sum(1)).sum(1)
        lin = self.first(xc).sum((1, 2)) + self.int_lin(xi).squeeze(1)
        deep = self.dnn(torch.cat([v.flatten(1), xi], 1)).squeeze(1)
        return lin + fm + deep


def load(files):
    xi, xc, y = [], [], []
    for f in files:
        z = np.load(f)
        xi.append(np.log1p(np.maximum(z["x_int"], 0)))
        xc.append(z["x_cat"])
        y.append(z["y"])
    return (torch.from_numpy(np.concatenate(xi).astype(np.float32)),
            torch.from_numpy(np.concatenate(xc).astype(np.int64)),
            torch.from_numpy(np.concatenate(y).astype(np.float32)))


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device("cuda", hvd.local_rank())
    else:
        dev = torch.device("cpu")

    shards = sorted(glob.glob(os.path.join(args.shards, "*.npz")))
    mine = [s for k, s in enumerate(shards) if k % hvd.size() == hvd.rank()]
    xi, xc, y = load(mine)
    vxi, vxc, vy = load(sorted(glob.glob(os.path.join(args.val_shards, "*.npz"))))
    xc = xc % args.buckets
    vxc = vxc % args.buckets
    # all workers must run the same number of steps (allreduce would hang otherwise)
    n_steps = hvd.allreduce(torch.tensor(len(y) // args.bs), op=hvd.Min, name="nsteps").item()
    if hvd.rank() == 0:
        print("shards=%d mine=%d steps/epoch=%d" % (len(shards), len(mine), n_steps))

    model = DeepFM(args.buckets, args.k).to(dev)
    emb_params = [("first.weight", model.first.weight), ("v.weight", model.v.weight)]
    dense_params = [(n, p) for n, p in model.named_parameters() if n not in ("first.weight", "v.weight")]
    # op=Sum: gradients are added over workers, which is the same as averaging with lr * size
    opt_emb = hvd.DistributedOptimizer(torch.optim.Adagrad([p for _, p in emb_params], lr=args.emb_lr),
                                       named_parameters=emb_params, op=hvd.Sum)
    opt = hvd.DistributedOptimizer(torch.optim.Adam([p for _, p in dense_params], lr=args.lr),
                                   named_parameters=dense_params, op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_emb, root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for ep in range(args.epochs):
        model.train()
        g = torch.Generator().manual_seed(1000 * ep + hvd.rank())
        perm = torch.randperm(len(y), generator=g)
        ll_sum = torch.zeros(2, dtype=torch.float64)
        t0 = time.time()
        for s in range(n_steps):
            idx = perm[s * args.bs:(s + 1) * args.bs]
            logit = model(xi[idx].to(dev), xc[idx].to(dev))
            loss = F.binary_cross_entropy_with_logits(logit, y[idx].to(dev))
            opt_emb.zero_grad()
            opt.zero_grad()
            loss.backward()
            opt_emb.step()
            opt.step()
            ll_sum += torch.tensor([loss.item() * len(idx), len(idx)], dtype=torch.float64)
        ll_sum = hvd.allreduce(ll_sum, op=hvd.Sum, name="train_ll")

        # validation: every worker scores its slice of the val rows, preds gathered for AUC
        model.eval()
        sl = np.array_split(np.arange(len(vy)), hvd.size())[hvd.rank()]
        with torch.no_grad():
            p = torch.cat([torch.sigmoid(model(vxi[sl[a:a + 8192]].to(dev), vxc[sl[a:a + 8192]].to(dev))).cpu()
                           for a in range(0, len(sl), 8192)])
        p_all = hvd.allgather(p, name="val_p")
        y_all = hvd.allgather(vy[sl], name="val_y")
        if hvd.rank() == 0:
            o = torch.argsort(p_all)
            yy = y_all[o].double()
            npos = yy.sum()
            nneg = len(yy) - npos
            r = torch.arange(1, len(yy) + 1, dtype=torch.float64)
            auc = ((r * yy).sum() - npos * (npos + 1) / 2) / (npos * nneg)
            ll = F.binary_cross_entropy(p_all.double().clamp(1e-7, 1 - 1e-7), y_all.double()).item()
            print("ep %d train_logloss %.5f val_auc %.5f val_logloss %.5f %.0fs" % (
                ep, (ll_sum[0] / ll_sum[1]).item(), auc.item(), ll, time.time() - t0))

        # embedding tables saved in row shards, one shard per worker (tables are identical everywhere)
        os.makedirs(args.save_dir, exist_ok=True)
        n_sh = args.emb_shards or hvd.size()
        rows = model.v.weight.shape[0]
        per = (rows + n_sh - 1) // n_sh
        for sh in range(hvd.rank(), n_sh, hvd.size()):
            torch.save({"v": model.v.weight[sh * per:(sh + 1) * per].detach().cpu(),
                        "first": model.first.weight[sh * per:(sh + 1) * per].detach().cpu()},
                       os.path.join(args.save_dir, "emb_ep%d_%03d-of-%03d.pt" % (ep, sh, n_sh)))
        if hvd.rank() == 0:
            torch.save({"dense": {k: v for k, v in model.state_dict().items() if not k.startswith(("v.", "first."))},
                        "opt": opt.state_dict(), "epoch": ep},
                       os.path.join(args.save_dir, "dense_ep%d.pt" % ep))


if __name__ == "__main__":
    main()
