# GraphSAGE with hand-rolled neighbour sampling, multi-GPU via Horovod.
# Usage: horovodrun -np 8 python run_hvd.py --graph data/products.npz --fanouts 15,10,5
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--graph', type=str, default='')
parser.add_argument('--synthetic-nodes', type=int, default=5000)
parser.add_argument('--fanouts', type=str, default='15,10,5')
parser.add_argument('--hidden', type=int, default=256)
parser.add_argument('--batch-size', type=int, default=1024)
parser.add_argument('--lr', type=float, default=0.003)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--eval-every', type=int, default=5)
parser.add_argument('--ckpt', type=str, default='sage.pt')
args = parser.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank()) if torch.cuda.is_available() else None
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def load_graph(path):
    if path:
        z = np.load(path)
        return z['indptr'], z['indices'], z['feat'], z['label'], z['train_idx'], z['val_idx']
    rng = np.random.RandomState(0)
    n, deg = args.synthetic_nodes, 8
    dst = np.repeat(np.arange(n), deg)
    src = rng.randint(0, n, size=n * deg)
    indptr = np.arange(0, n * deg + 1, deg)
    label = rng.randint(0, 10, size=n)
    feat = (np.eye(10)[label] + rng.randn(n, 10)).astype(np.float32)
    perm = rng.permutation(n)
    return indptr, src, feat, label, perm[: int(0.7 * n)], perm[int(0.7 * n):int(0.85 * n)]


def sample_blocks(seeds, indptr, indices, fanouts, rng):
    """Returns the input nodes and one (src, dst, num_dst) block per layer, input layer first."""
    blocks, nodes = [], seeds
    for fanout in fanouts:
        srcs, dsts = [], []
        for i, v in enumerate(nodes):
            nbrs = indices[indptr[v]:indptr[v + 1]]
            if len(nbrs) > fanout:
                nbrs = rng.choice(nbrs, fanout, replace=False)
            srcs.append(nbrs)
            dsts.append(np.full(len(nbrs), i))
        srcs, dsts = np.concatenate(srcs), np.concatenate(dsts)
        mapping = {int(v): i for i, v in enumerate(nodes)}
        for s in srcs:
            mapping.setdefault(int(s), len(mapping))
        local_src = np.fromiter((mapping[int(s)] for s in srcs), dtype=np.int64, count=len(srcs))
        blocks.append((torch.from_numpy(local_src), torch.from_numpy(dsts), len(nodes)))
        nodes = np.fromiter(mapping.keys(), dtype=np.int64)
    return nodes, blocks[::-1]


class SAGEConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.self_lin = nn.Linear(d_in, d_out)
        self.neigh_lin = nn.Linear(d_in, d_out, bias=False)

    def forward(self, h, block):
        src, dst, num_dst = block
        agg = torch.zeros(num_dst, h.size(1), device=h.device).index_add_(0, dst, h[src])
        deg = torch.bincount(dst, minlength=num_dst).clamp(min=1).unsqueeze(1)
        return self.self_lin(h[:num_dst]) + self.neigh_lin(agg / deg)


class SAGE(nn.Module):
    def __init__(self, d_in, hidden, n_cls, n_layers):
        super().__init__()
        dims = [d_in] + [hidden] * (n_layers - 1) + [n_cls]
        self.convs = nn.ModuleList(SAGEConv(a, b) for a, b in zip(dims[:-1], dims[1:]))

    def forward(self, x, blocks):
        h = x
        for i, (conv, block) in enumerate(zip(self.convs, blocks)):
            block = tuple(t.to(h.device) if torch.is_tensor(t) else t for t in block)
            h = conv(h, block)
            if i < len(self.convs) - 1:
                h = F.dropout(F.relu(h), 0.5, self.training)
        return h


indptr, indices, feat, label, train_idx, val_idx = load_graph(args.graph)
feat_t = torch.from_numpy(feat).to(device)
label_t = torch.from_numpy(label).long().to(device)
fanouts = [int(f) for f in args.fanouts.split(',')]

# every rank gets the same permutation, then its own contiguous chunk of seed nodes
perm = np.random.RandomState(42).permutation(train_idx)
my_train = np.array_split(perm, hvd.size())[hvd.rank()]
steps_per_epoch = (len(train_idx) // hvd.size()) // args.batch_size

model = SAGE(feat.shape[1], args.hidden, int(label.max()) + 1, len(fanouts)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

rng = np.random.RandomState(1000 + hvd.rank())


@torch.no_grad()
def evaluate(nodes):
    model.eval()
    correct = 0
    eval_rng = np.random.RandomState(7)
    for i in range(0, len(nodes), 4096):
        seeds = nodes[i:i + 4096]
        input_nodes, blocks = sample_blocks(seeds, indptr, indices, fanouts, eval_rng)
        logits = model(feat_t[torch.from_numpy(input_nodes).to(device)], blocks)
        correct += (logits.argmax(1) == label_t[torch.from_numpy(seeds).to(device)]).sum().item()
    return correct / len(nodes)


for epoch in range(args.epochs):
    model.train()
    tic = time.time()
    order = rng.permutation(my_train)
    for step in range(steps_per_epoch):
        seeds = order[step * args.batch_size:(step + 1) * args.batch_size]
        input_nodes, blocks = sample_blocks(seeds, indptr, indices, fanouts, rng)
        logits = model(feat_t[torch.from_numpy(input_nodes).to(device)], blocks)
        loss = F.cross_entropy(logits, label_t[torch.from_numpy(seeds).to(device)])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0 and hvd.rank() == 0:
            print(f'epoch {epoch} step {step}/{steps_per_epoch} loss {loss.item():.4f}')
    if hvd.rank() == 0:
        print(f'epoch {epoch} took {time.time() - tic:.1f}s')

    if (epoch + 1) % args.eval_every == 0:
        val_acc = evaluate(val_idx)          # full validation set on every rank, same sampling seed
        if hvd.rank() == 0:
            print(f'epoch {epoch} val acc {val_acc:.4f}')
            torch.save({'model': model.state_dict(), 'epoch': epoch, 'args': vars(args)}, args.ckpt)
