# Two-tower candidate retrieval (user tower / item tower) with in-batch negatives.
# Interactions: parquet-free npz with user_id, item_id, ts; the last interaction per user is held out.
import argparse
import os
import time

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args():
    ap = argparse.ArgumentParser(description="two-tower retrieval")
    ap.add_argument("--interactions", default=os.environ.get("TT_DATA", "/mnt/rec/interactions.npz"))
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--temperature", type=float, default=0.05)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--topk", type=int, default=50)
    ap.add_argument("--save-dir", default="artifacts/two_tower")
    return ap.parse_args()


class Tower(nn.Module):
    def __init__(self, n_ids, dim):
        super().__init__()
        self.emb = nn.Embedding(n_ids, dim, sparse=True)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, ids):
        return F.normalize(self.proj(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user = Tower(n_users, dim)
        self.item = Tower(n_items, dim)


def split_holdout(users, items, ts):
    order = np.lexsort((ts, users))
    users, items = users[order], items[order]
    last = np.r_[users[1:] != users[:-1], True]
    return (users[~last], items[~last]), (users[last], items[last])


def recall_at_k(model, users, items, n_items, k, device, chunk=4096):
    model.eval()
    with torch.no_grad():
        all_items = model.item(torch.arange(n_items, device=device))
        hits = 0
        for s in range(0, len(users), chunk):
            u = model.user(torch.as_tensor(users[s:s + chunk], device=device))
            top = (u @ all_items.T).topk(k, dim=1).indices.cpu().numpy()
            hits += (top == items[s:s + chunk, None]).any(axis=1).sum()
    model.train()
    return hits / len(users)


def main():
    args = get_args()
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())

    z = np.load(args.interactions)
    n_users, n_items = int(z["user_id"].max()) + 1, int(z["item_id"].max()) + 1
    (tr_u, tr_i), (te_u, te_i) = split_holdout(z["user_id"], z["item_id"], z["ts"])

    # same permutation on every worker, then an equal contiguous block each
    perm = np.random.default_rng(2024).permutation(len(tr_u))
    per_worker = len(perm) // hvd.size()
    mine = perm[hvd.rank() * per_worker:(hvd.rank() + 1) * per_worker]
    tr_u, tr_i = torch.as_tensor(tr_u[mine]), torch.as_tensor(tr_i[mine])
    steps = per_worker // args.batch_size

    torch.manual_seed(0)
    model = TwoTower(n_users, n_items, args.dim).to(device)
    # gradients are summed over workers, so the single-worker lr already gives the N-times step
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum,
                                   sparse_as_dense=True)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    for epoch in range(args.epochs):
        t0 = time.time()
        order = torch.randperm(per_worker)
        running = torch.zeros(())
        for s in range(steps):
            idx = order[s * args.batch_size:(s + 1) * args.batch_size]
            u = model.user(tr_u[idx].to(device))
            i = model.item(tr_i[idx].to(device))
            logits = u @ i.T / args.temperature
            loss = F.cross_entropy(logits, torch.arange(len(idx), device=device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.detach().cpu()
        epoch_loss = hvd.allreduce(running / steps, name="epoch_loss").item()

        if hvd.rank() == 0:
            rec = recall_at_k(model, te_u, te_i, n_items, args.topk, device)
            print(f"epoch {epoch} loss {epoch_loss:.4f} recall@{args.topk} {rec:.4f} "
                  f"({time.time() - t0:.0f}s)", flush=True)
            os.makedirs(args.save_dir, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(args.save_dir, "two_tower.pt"))
        hvd.barrier()


if __name__ == "__main__":
    main()
