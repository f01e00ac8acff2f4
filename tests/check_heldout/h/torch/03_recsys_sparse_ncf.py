"""Neural collaborative filtering (NeuMF) on implicit feedback, Horovod data parallel.

Embedding tables are large (millions of users), so they use sparse gradients + SparseAdam;
the MLP tower uses plain Adam.

data/interactions_train.npy : int64 array (N, 2) of (user, item) positives
data/test_leave_one_out.npy : int64 array (U, 101): user, held-out item, 99 sampled negatives
"""
import argparse
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter

import horovod.torch as hvd

parser = argparse.ArgumentParser(description="NeuMF horovod")
parser.add_argument("--data", default="data")
parser.add_argument("--factors", type=int, default=64)
parser.add_argument("--layers", type=int, nargs="+", default=[256, 128, 64])
parser.add_argument("--neg", type=int, default=4, help="negatives per positive")
parser.add_argument("--batch-size", type=int, default=65536)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--topk", type=int, default=10)
parser.add_argument("--logdir", default="tb/ncf")
parser.add_argument("--ckpt", default="ncf.pt")
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank())
dev = torch.device("cuda", hvd.local_rank())

logging.basicConfig(format=f"[rank {hvd.rank()}] %(asctime)s %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, k, layers):
        super().__init__()
        self.gmf_u = nn.Embedding(n_users, k, sparse=True)
        self.gmf_i = nn.Embedding(n_items, k, sparse=True)
        self.mlp_u = nn.Embedding(n_users, layers[0] // 2, sparse=True)
        self.mlp_i = nn.Embedding(n_items, layers[0] // 2, sparse=True)
        mlp = []
        for a, b in zip(layers[:-1], layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.out = nn.Linear(k + layers[-1], 1)
        for e in (self.gmf_u, self.gmf_i, self.mlp_u, self.mlp_i):
            nn.init.normal_(e.weight, std=0.01)

    def forward(self, u, i):
        g = self.gmf_u(u) * self.gmf_i(i)
        m = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], dim=1))
        return self.out(torch.cat([g, m], dim=1)).squeeze(1)


pos = np.load(os.path.join(args.data, "interactions_train.npy"))
test = np.load(os.path.join(args.data, "test_leave_one_out.npy"))
n_users = int(max(pos[:, 0].max(), test[:, 0].max())) + 1
n_items = int(max(pos[:, 1].max(), test[:, 1:].max())) + 1

# same permutation on every worker, each takes every size-th positive
perm = np.random.RandomState(2024).permutation(len(pos))
my_pos = pos[perm[hvd.rank()::hvd.size()]]
my_test = test[hvd.rank()::hvd.size()]
logger.info("%d positives, %d test users on this rank", len(my_pos), len(my_test))

model = NeuMF(n_users, n_items, args.factors, args.layers).to(dev)
sparse_params = [p for n, p in model.named_parameters() if n.split(".")[0] in
                 ("gmf_u", "gmf_i", "mlp_u", "mlp_i")]
dense_named = [(n, p) for n, p in model.named_parameters() if n.split(".")[0] in ("mlp", "out")]

lr = args.lr * hvd.size()
sparse_opt = torch.optim.SparseAdam(sparse_params, lr=lr)
dense_opt = torch.optim.Adam([p for _, p in dense_named], lr=lr)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
dense_opt = hvd.DistributedOptimizer(dense_opt, named_parameters=dense_named)

loss_fn = nn.BCEWithLogitsLoss()
writer = SummaryWriter(args.logdir) if hvd.rank() == 0 else None


def make_epoch(rng):
    """positives of this rank plus `neg` uniformly sampled negatives each, shuffled"""
    users = np.repeat(my_pos[:, 0], 1 + args.neg)
    items = np.repeat(my_pos[:, 1], 1 + args.neg)
    labels = np.zeros(len(users), dtype=np.float32)
    labels[:: 1 + args.neg] = 1.0
    neg_mask = labels == 0
    items[neg_mask] = rng.randint(0, n_items, size=int(neg_mask.sum()))
    order = rng.permutation(len(users))
    return users[order], items[order], labels[order]


@torch.no_grad()
def hit_rate_ndcg(k):
    model.eval()
    hits, ndcgs = [], []
    for start in range(0, len(my_test), 1024):
        block = torch.from_numpy(my_test[start:start + 1024]).to(dev)
        u = block[:, :1].expand(-1, block.size(1) - 1).reshape(-1)
        i = block[:, 1:].reshape(-1)
        scores = model(u, i).view(block.size(0), -1)
        rank_of_pos = (scores > scores[:, :1]).sum(1)
        hit = rank_of_pos < k
        hits.append(hit.float())
        ndcgs.append(torch.where(hit, 1.0 / torch.log2(rank_of_pos.float() + 2), torch.zeros_like(scores[:, 0])))
    model.train()
    return torch.cat(hits).mean().item(), torch.cat(ndcgs).mean().item()


rng = np.random.RandomState(17 + hvd.rank())
best_hr = 0.0
step = 0
for epoch in range(args.epochs):
    t0 = time.time()
    users, items, labels = make_epoch(rng)
    n_batches = len(users) // args.batch_size
    # all ranks must do the same number of steps (allreduce inside step)
    n_batches = int(hvd.allreduce(torch.tensor(n_batches), op=hvd.Min, name="nb").item())
    epoch_loss = 0.0
    for b in range(n_batches):
        sl = slice(b * args.batch_size, (b + 1) * args.batch_size)
        u = torch.from_numpy(users[sl]).to(dev)
        i = torch.from_numpy(items[sl]).to(dev)
        y = torch.from_numpy(labels[sl]).to(dev)
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss = loss_fn(model(u, i), y)
        loss.backward()
        sparse_opt.step()
        dense_opt.step()
        epoch_loss += loss.item()
        step += 1
        if writer is not None and step % 100 == 0:
            writer.add_scalar("train/loss", loss.item(), step)

    hr, ndcg = hit_rate_ndcg(args.topk)
    if hvd.rank() == 0:
        logger.info("epoch %d loss %.4f HR@%d %.4f NDCG %.4f (%.1fs)", epoch,
                    epoch_loss / max(1, n_batches), args.topk, hr, ndcg, time.time() - t0)
        writer.add_scalar("eval/hr", hr, epoch)
        writer.add_scalar("eval/ndcg", ndcg, epoch)
        if hr > best_hr:
            best_hr = hr
            torch.save(model.state_dict(), args.ckpt)

if writer is not None:
    writer.close()
