# two tower retrieval (user tower / item tower), in-batch + random negatives
# horovodrun -np 4 python train_hvd.py --interactions data/interactions.npy
import argparse, os, time, math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--interactions', default='data/interactions.npy', help='int64 array [N,2] user,item')
parser.add_argument('--n-users', type=int, default=500000)
parser.add_argument('--n-items', type=int, default=200000)
parser.add_argument('--hash-buckets', type=int, default=0, help='0 = no hashing')
parser.add_argument('--dim', type=int, default=64)
parser.add_argument('--batch', type=int, default=1024)
parser.add_argument('--neg', type=int, default=256, help='extra random negatives per batch')
parser.add_argument('--temperature', type=float, default=0.05)
parser.add_argument('--lr', type=float, default=0.002)
parser.add_argument('--epochs', type=int, default=5)
parser.add_argument('--seed', type=int, default=7)
parser.add_argument('--out', default='checkpoints')
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device('cuda' if use_cuda else 'cpu')
# different seed on every worker so the sampled negatives are not the same everywhere
torch.manual_seed(args.seed + hvd.rank())
np.random.seed(args.seed + hvd.rank())

n_users = args.hash_buckets or args.n_users
n_items = args.hash_buckets or args.n_items


class Tower(nn.Module):
    def __init__(self, n, dim):
        super(Tower, self).__init__()
        self.emb = nn.Embedding(n, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, ids):
        return F.normalize(self.mlp(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self):
        super(TwoTower, self).__init__()
        self.user = Tower(n_users, args.dim)
        self.item = Tower(n_items, args.dim)


model = TwoTower().to(device)

data = np.load(args.interactions)
if args.hash_buckets:
    data = data % args.hash_buckets
# split rows between workers (same permutation everywhere)
perm = np.random.RandomState(args.seed).permutation(len(data))
n_val = len(data) // 50
val_rows, train_rows = perm[:n_val], perm[n_val:]
my_rows = np.array_split(train_rows, hvd.size())[hvd.rank()]
my_val = np.array_split(val_rows, hvd.size())[hvd.rank()]
steps_per_epoch = (len(train_rows) // hvd.size()) // args.batch  # same count on every worker

optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def batch_loss(u, i):
    ue = model.user(u)
    ie = model.item(i)
    rnd = torch.randint(0, n_items, (args.neg,), device=device)
    ne = model.item(rnd)
    cand = torch.cat([ie, ne], 0)
    logits = ue @ cand.t() / args.temperature
    target = torch.arange(len(u), device=device)
    return F.cross_entropy(logits, target)


@torch.no_grad()
def recall_at_k(rows, k=50):
    model.eval()
    hits, total = 0.0, 0.0
    for s in range(0, len(rows), 512):
        b = data[rows[s:s + 512]]
        u = torch.from_numpy(b[:, 0]).to(device)
        i = torch.from_numpy(b[:, 1]).to(device)
        ue = model.user(u)
        # rank the positive against 1000 random items
        cand = torch.randint(0, n_items, (1000,), device=device)
        neg_s = ue @ model.item(cand).t()
        pos_s = (ue * model.item(i)).sum(-1, keepdim=True)
        rank = (neg_s > pos_s).sum(-1)
        hits += (rank < k).float().sum().item()
        total += len(u)
    model.train()
    t = hvd.allreduce(torch.tensor([hits, total]), op=hvd.Sum, name='recall')
    return (t[0] / t[1]).item()


for epoch in range(args.epochs):
    np.random.shuffle(my_rows)
    t0 = time.time()
    tot = 0.0
    for step in range(steps_per_epoch):
        b = data[my_rows[step * args.batch:(step + 1) * args.batch]]
        u = torch.from_numpy(b[:, 0]).to(device)
        i = torch.from_numpy(b[:, 1]).to(device)
        optimizer.zero_grad()
        loss = batch_loss(u, i)
        loss.backward()
        optimizer.step()
        tot += loss.item()
        if step % 100 == 0 and hvd.rank() == 0:
            print('epoch {} step {}/{} loss {:.4f} ({:.1f}s)'.format(epoch, step, steps_per_epoch, loss.item(), time.time() - t0))
    r = recall_at_k(my_val)
    if hvd.rank() == 0:
        print('epoch {} train loss {:.4f} val recall@50 {:.4f}'.format(epoch, tot / max(steps_per_epoch, 1), r))
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.out, 'two_tower_{}.pt'.format(epoch)))
        # item embeddings for the ANN index
        np.save(os.path.join(args.out, 'item_emb_{}.npy'.format(epoch)),
                model.item(torch.arange(n_items, device=device)).detach().cpu().numpy())
