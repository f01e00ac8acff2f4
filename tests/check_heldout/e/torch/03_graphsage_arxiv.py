# GraphSAGE on ogbn-arxiv, mini-batch neighbour sampling, data parallel with Horovod.
# Each worker keeps the whole graph (it is small) and samples around its own seed nodes.
#   mpirun -np 4 python 03_graphsage_arxiv.py --root /scratch/$USER/ogb
import argparse
import time

import torch
import torch.nn.functional as F
import torch_geometric.transforms as T
from ogb.nodeproppred import Evaluator, PygNodePropPredDataset
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import SAGEConv

import horovod.torch as hvd


class SAGE(torch.nn.Module):
    def __init__(self, in_ch, hid, out_ch, num_layers=3, dropout=0.5):
        super().__init__()
        self.convs = torch.nn.ModuleList([SAGEConv(in_ch, hid)])
        self.bns = torch.nn.ModuleList([torch.nn.BatchNorm1d(hid)])
        for _ in range(num_layers - 2):
            self.convs.append(SAGEConv(hid, hid))
            self.bns.append(torch.nn.BatchNorm1d(hid))
        self.convs.append(SAGEConv(hid, out_ch))
        self.dropout = dropout

    def forward(self, x, edge_index):
        for conv, bn in zip(self.convs[:-1], self.bns):
            x = F.relu(bn(conv(x, edge_index)))
            x = F.dropout(x, p=self.dropout, training=self.training)
        return self.convs[-1](x, edge_index)


p = argparse.ArgumentParser()
p.add_argument("--root", default="data/ogb")
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--batch-size", type=int, default=1024)
p.add_argument("--fanout", type=int, nargs="+", default=[15, 10, 5])
p.add_argument("--lr", type=float, default=0.003)
p.add_argument("--epochs", type=int, default=50)
p.add_argument("--out", default="sage_arxiv.pt")
args = p.parse_args()

hvd.init()
torch.cuda.set_device(hvd.local_rank())
dev = torch.device("cuda")
rank, world = hvd.rank(), hvd.size()

dataset = PygNodePropPredDataset("ogbn-arxiv", root=args.root, transform=T.ToUndirected())
data = dataset[0]
data.y = data.y.view(-1)
split = dataset.get_idx_split()
evaluator = Evaluator("ogbn-arxiv")

# same permutation on every worker (fixed generator), then every world-th node:
# the workers' seed nodes are disjoint and cover the training split
g = torch.Generator().manual_seed(0)
train_idx = split["train"][torch.randperm(split["train"].numel(), generator=g)]
train_idx = train_idx[: train_idx.numel() // world * world]  # equal shards -> same #batches
my_seeds = train_idx[rank::world]

train_loader = NeighborLoader(data, input_nodes=my_seeds, num_neighbors=args.fanout,
                              batch_size=args.batch_size, shuffle=True, num_workers=4,
                              persistent_workers=True)

model = SAGE(data.num_features, args.hidden, dataset.num_classes).to(dev)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * world)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

x_full, ei_full, y_full = data.x.to(dev), data.edge_index.to(dev), data.y.to(dev)


@torch.no_grad()
def full_graph_eval():
    """Full-neighbourhood inference on the whole graph: identical on every worker."""
    model.eval()
    pred = model(x_full, ei_full).argmax(-1, keepdim=True)
    res = {}
    for key in ("train", "valid", "test"):
        idx = split[key].to(dev)
        res[key] = evaluator.eval({"y_true": y_full[idx].unsqueeze(-1),
                                   "y_pred": pred[idx]})["acc"]
    return res


best_val = 0.0
for epoch in range(1, args.epochs + 1):
    model.train()
    t0 = time.time()
    tot_loss, tot_n = 0.0, 0
    for batch in train_loader:
        batch = batch.to(dev)
        optimizer.zero_grad()
        out = model(batch.x, batch.edge_index)[: batch.batch_size]
        loss = F.cross_entropy(out, batch.y[: batch.batch_size])
        loss.backward()
        optimizer.step()
        tot_loss += float(loss) * batch.batch_size
        tot_n += batch.batch_size

    # weight every worker's mean by its seed count
    agg = hvd.allreduce(torch.tensor([tot_loss, float(tot_n)]), op=hvd.Sum, name="loss_agg")
    epoch_loss = (agg[0] / agg[1]).item()

    accs = full_graph_eval()
    if rank == 0:
        print(f"ep {epoch:02d} loss {epoch_loss:.4f} train {accs['train']:.4f} "
              f"valid {accs['valid']:.4f} test {accs['test']:.4f} [{time.time() - t0:.1f}s]")
        if accs["valid"] > best_val:
            best_val = accs["valid"]
            torch.save({"epoch": epoch, "state_dict": model.state_dict(), "valid": best_val}, args.out)

if rank == 0:
    print(f"best valid acc {best_val:.4f}, saved to {args.out}")
