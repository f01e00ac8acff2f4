# GraphSAGE with neighbour sampling on a large graph (ogbn-products style), horovod data parallel.
# every worker keeps the full graph in memory, the seed nodes of each mini-batch are split over workers.
#
#   horovodrun -np 4 python train_sage.py --fanouts 15,10 --batch-size 1024
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--graph', type=str, default='', help='npz with indptr/indices/feat/label/split')
parser.add_argument('--num-nodes', type=int, default=100000)
parser.add_argument('--feat-dim', type=int, default=100)
parser.add_argument('--n-classes', type=int, default=47)
parser.add_argument('--fanouts', type=str, default='15,10')
parser.add_argument('--hidden', type=int, default=256)
parser.add_argument('--batch-size', type=int, default=1024)
parser.add_argument('--lr', type=float, default=0.003)
parser.add_argument('--epochs', type=int, default=20)
parser.add_argument('--eval-every', type=int, default=2)
parser.add_argument('--out', type=str, default='./sage_ckpt')
parser.add_argument('--fp16-allreduce', action='store_true', default=False)
parser.add_argument('--seed', type=int, default=0)
args = parser.parse_args()

hvd.init()
torch.manual_seed(args.seed)
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
dev = torch.device('cuda' if cuda else 'cpu')


def load_graph():
    if args.graph:
        z = np.load(args.graph)
        return z['indptr'], z['indices'], z['feat'], z['label'], z['train_idx'], z['valid_idx']
    rs = np.random.RandomState(1234)  # same fake graph on every worker
    n = args.num_nodes
    deg = rs.randint(1, 20, n)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    indices = rs.randint(0, n, indptr[-1])
    feat = rs.randn(n, args.feat_dim).astype(np.float32)
    label = rs.randint(0, args.n_classes, n)
    perm = rs.permutation(n)
    return indptr, indices, feat, label, perm[:n // 10], perm[n // 10:n // 10 + n // 20]


indptr, indices, feat, label, train_idx, valid_idx = load_graph()
indptr_t = torch.from_numpy(indptr).long()
indices_t = torch.from_numpy(indices).long()
feat_t = torch.from_numpy(feat)
label_t = torch.from_numpy(label).long()
fanouts = [int(f) for f in args.fanouts.split(',')]


def sample_blocks(seeds, gen=None):
    """returns list of (src_nodes, dst_count, edge_src, edge_dst) from the input layer to the output layer"""
    blocks = []
    nodes = seeds
    for fan in fanouts:
        starts, ends = indptr_t[nodes], indptr_t[nodes + 1]
        deg = (ends - starts).clamp(min=1)
        r = torch.randint(0, 1 << 30, (len(nodes), fan), generator=gen)
        pick = starts.unsqueeze(1) + r % deg.unsqueeze(1)
        nbrs = indices_t[pick.clamp(max=len(indices_t) - 1)].flatten()
        uniq, inv = torch.unique(torch.cat([nodes, nbrs]), return_inverse=True)
        # keep dst nodes first
        src_nodes = torch.cat([nodes, uniq[~torch.isin(uniq, nodes)]])
        remap = torch.empty(int(src_nodes.max()) + 1, dtype=torch.long)
        remap[src_nodes] = torch.arange(len(src_nodes))
        e_src = remap[nbrs]
        e_dst = torch.arange(len(nodes)).repeat_interleave(fan)
        blocks.insert(0, (src_nodes, len(nodes), e_src, e_dst))
        nodes = src_nodes
    return blocks


class SAGEConv(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.self_lin = nn.Linear(i, o)
        self.nbr_lin = nn.Linear(i, o, bias=False)

    def forward(self, h, n_dst, e_src, e_dst):
        agg = torch.zeros(n_dst, h.size(1), device=h.device).index_add_(0, e_dst, h[e_src])
        cnt = torch.bincount(e_dst, minlength=n_dst).clamp(min=1).unsqueeze(1)
        return self.self_lin(h[:n_dst]) + self.nbr_lin(agg / cnt)


class SAGE(nn.Module):
    def __init__(self, i, h, o, n_layers):
        super().__init__()
        dims = [i] + [h] * (n_layers - 1) + [o]
        self.layers = nn.ModuleList([SAGEConv(dims[k], dims[k + 1]) for k in range(n_layers)])

    def forward(self, blocks, x):
        h = x
        for k, (layer, (_, n_dst, e_src, e_dst)) in enumerate(zip(self.layers, blocks)):
            h = layer(h, n_dst, e_src.to(h.device), e_dst.to(h.device))
            if k != len(self.layers) - 1:
                h = F.dropout(F.relu(h), 0.5, self.training)
        return h


model = SAGE(feat_t.size(1), args.hidden, args.n_classes, len(fanouts)).to(dev)

# gradients are summed over the workers (not averaged) -> the base lr already acts like lr * N.
# pre-divide so the fp16 sum does not overflow
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression, op=hvd.Sum,
                                     gradient_predivide_factor=float(hvd.size()))
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def evaluate():
    model.eval()
    my_nodes = torch.from_numpy(valid_idx).long()[hvd.rank()::hvd.size()]
    correct = total = 0
    with torch.no_grad():
        for s in range(0, len(my_nodes), args.batch_size):
            seeds = my_nodes[s:s + args.batch_size]
            blocks = sample_blocks(seeds)
            x = feat_t[blocks[0][0]].to(dev)
            pred = model(blocks, x).argmax(1).cpu()
            correct += (pred == label_t[seeds]).sum().item()
            total += len(seeds)
    t = hvd.allreduce(torch.tensor([correct, total], dtype=torch.float64), op=hvd.Sum, name='val_acc')
    return (t[0] / t[1]).item()


best = 0.0
os.makedirs(args.out, exist_ok=True)
for epoch in range(args.epochs):
    model.train()
    g = torch.Generator().manual_seed(args.seed + epoch)
    perm = torch.from_numpy(train_idx).long()[torch.randperm(len(train_idx), generator=g)]
    mine = perm[hvd.rank()::hvd.size()]
    tic = time.time()
    for it, s in enumerate(range(0, len(mine), args.batch_size)):
        seeds = mine[s:s + args.batch_size]
        blocks = sample_blocks(seeds)
        x = feat_t[blocks[0][0]].to(dev)
        y = label_t[seeds].to(dev)
        loss = F.cross_entropy(model(blocks, x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if it % 50 == 0 and hvd.rank() == 0:
            print('epoch %d it %d loss %.4f' % (epoch, it, loss.item()))
    if hvd.rank() == 0:
        print('epoch %d took %.1fs' % (epoch, time.time() - tic))

    if (epoch + 1) % args.eval_every == 0:
        acc = evaluate()
        if hvd.rank() == 0:
            print('val acc %.4f (best %.4f)' % (acc, best))
        if acc > best:
            best = acc
            torch.save({'model': model.state_dict(), 'epoch': epoch, 'acc': acc},
                       os.path.join(args.out, 'sage_best.pt'))
