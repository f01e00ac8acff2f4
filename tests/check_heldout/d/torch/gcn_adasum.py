# GCN node classification on a large citation graph (preprocessed to .pt)
# full graph lives on every GPU; the training nodes are split between workers.
# Uses Adasum: with NCCL + Adasum the lr scales with local_size (see horovod docs).
import os, sys, time, argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument('--graph', type=str, default='/projects/gnn/ogbn_arxiv_processed.pt')
parser.add_argument('--hidden', type=int, default=256)
parser.add_argument('--layers', type=int, default=3)
parser.add_argument('--dropout', type=float, default=0.5)
parser.add_argument('--lr', type=float, default=0.01)
parser.add_argument('--epochs', type=int, default=500)
parser.add_argument('--batch-nodes', type=int, default=4096)
parser.add_argument('--use-adasum', action='store_true', default=True)
parser.add_argument('--patience', type=int, default=50)
parser.add_argument('--save', type=str, default='gcn_best.pt')
args = parser.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    dev = torch.device('cuda')
else:
    dev = torch.device('cpu')
torch.manual_seed(0)


def log(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)


class GCNLayer(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.lin = nn.Linear(i, o)

    def forward(self, x, adj):
        return torch.sparse.mm(adj, self.lin(x))


class GCN(nn.Module):
    def __init__(self, nin, nhid, nout, nlayers, p):
        super().__init__()
        dims = [nin] + [nhid] * (nlayers - 1) + [nout]
        self.layers = nn.ModuleList([GCNLayer(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.norms = nn.ModuleList([nn.BatchNorm1d(nhid) for _ in range(nlayers - 1)])
        self.p = p

    def forward(self, x, adj):
        for i, layer in enumerate(self.layers[:-1]):
            x = layer(x, adj)
            x = F.relu(self.norms[i](x))
            x = F.dropout(x, self.p, self.training)
        return self.layers[-1](x, adj)


g = torch.load(args.graph)
x, y, adj = g['x'].to(dev), g['y'].squeeze().to(dev), g['adj'].coalesce().to(dev)
train_idx, valid_idx, test_idx = g['train_idx'], g['valid_idx'], g['test_idx']

# every rank permutes the training nodes the same way, then takes its slice
perm = torch.randperm(train_idx.numel(), generator=torch.Generator().manual_seed(42))
my_train = train_idx[perm][hvd.rank()::hvd.size()].to(dev)
log(f'{hvd.size()} workers, {my_train.numel()} train nodes on rank 0')

model = GCN(x.size(1), args.hidden, int(y.max()) + 1, args.layers, args.dropout).to(dev)

if args.use_adasum:
    lr_scaler = hvd.local_size() if (torch.cuda.is_available() and hvd.nccl_built()) else 1
    reduce_op = hvd.Adasum
else:
    lr_scaler = hvd.size()
    reduce_op = hvd.Average

optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * lr_scaler)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=reduce_op)


@torch.no_grad()
def evaluate():
    # whole graph, same on all ranks -> no reduction needed
    model.eval()
    pred = model(x, adj).argmax(-1)
    return [(pred[idx] == y[idx]).float().mean().item() for idx in (train_idx, valid_idx, test_idx)]


best_val, best_epoch, bad = 0.0, 0, 0
for epoch in range(1, args.epochs + 1):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    out = model(x, adj)
    loss = F.cross_entropy(out[my_train], y[my_train])
    loss.backward()
    optimizer.step()
    loss_avg = hvd.allreduce(loss.detach(), name='loss').item()

    tr, va, te = evaluate()
    if va > best_val:
        best_val, best_epoch, bad = va, epoch, 0
        if hvd.rank() == 0:
            torch.save(model.state_dict(), args.save)
    else:
        bad += 1
    if epoch % 10 == 0:
        log(f'ep {epoch:04d} loss {loss_avg:.4f} train {tr:.4f} val {va:.4f} test {te:.4f} ({time.time()-t:.2f}s)')
    if bad >= args.patience:
        log(f'early stop at {epoch}, best val {best_val:.4f} @ {best_epoch}')
        break

log('done. best valid acc %.4f' % best_val)
