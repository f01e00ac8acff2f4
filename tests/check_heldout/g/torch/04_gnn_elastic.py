"""GIN graph classification on a TU dataset with elastic Horovod.

horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
    python 04_gnn_elastic.py --dataset PROTEINS
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINConv, global_add_pool
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", default="PROTEINS")
parser.add_argument("--root", default=os.path.expanduser("~/data/TU"))
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--base-lr", type=float, default=1e-3)
parser.add_argument("--hidden", type=int, default=64)
parser.add_argument("--commit-every", type=int, default=20)
parser.add_argument("--ckpt", default="gin_{dataset}.pt")
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")


class GIN(nn.Module):
    def __init__(self, din, dh, dout, layers=4):
        super().__init__()
        self.convs = nn.ModuleList()
        for i in range(layers):
            mlp = nn.Sequential(nn.Linear(din if i == 0 else dh, dh), nn.BatchNorm1d(dh), nn.ReLU(), nn.Linear(dh, dh))
            self.convs.append(GINConv(mlp, train_eps=True))
        self.out = nn.Sequential(nn.Linear(dh * layers, dh), nn.ReLU(), nn.Dropout(0.5), nn.Linear(dh, dout))

    def forward(self, x, edge_index, batch):
        hs = []
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            hs.append(global_add_pool(x, batch))
        return self.out(torch.cat(hs, 1))


class Accuracy:
    """Running accuracy; sync() sums the counts over all workers."""

    def __init__(self):
        self.correct = 0
        self.seen = 0

    def update(self, logits, y):
        self.correct += int((logits.argmax(1) == y).sum())
        self.seen += int(y.numel())

    def sync(self):
        t = hvd.allreduce(torch.tensor([self.correct, self.seen], dtype=torch.float64), op=hvd.Sum, name="acc_counts")
        return (t[0] / t[1]).item()


dataset = TUDataset(args.root, name=args.dataset)
g = torch.Generator().manual_seed(0)  # same split on every worker
perm = torch.randperm(len(dataset), generator=g)
n_test = len(dataset) // 10
test_set, train_set = dataset[perm[:n_test]], dataset[perm[n_test:]]

train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True, seed=0)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
test_loader = DataLoader(test_set, batch_size=128)  # every worker scores the full test split

model = GIN(dataset.num_features, args.hidden, dataset.num_classes).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def evaluate():
    model.eval()
    acc = Accuracy()
    with torch.no_grad():
        for data in test_loader:
            data = data.to(device)
            acc.update(model(data.x, data.edge_index, data.batch), data.y)
    return acc.correct / max(acc.seen, 1)


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        model.train()
        state.train_sampler.set_epoch(state.epoch)
        acc = Accuracy()
        for state.batch, data in enumerate(train_loader, start=state.batch):
            data = data.to(device)
            optimizer.zero_grad()
            logits = model(data.x, data.edge_index, data.batch)
            loss = F.cross_entropy(logits, data.y)
            loss.backward()
            optimizer.step()
            acc.update(logits.detach(), data.y)
            state.train_sampler.record_batch(state.batch, args.batch_size)
            if state.batch % args.commit_every == 0:
                state.commit()
        state.batch = 0
        train_acc = acc.sync()
        test_acc = evaluate()
        if hvd.rank() == 0:
            print(f"epoch {state.epoch:3d} train_acc {train_acc:.3f} test_acc {test_acc:.3f} workers {hvd.size()}")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": state.epoch},
                       args.ckpt.format(dataset=args.dataset))
        state.commit()


def on_state_reset():
    # world size may have changed: keep lr proportional to the number of workers
    for group in optimizer.param_groups:
        group["lr"] = args.base_lr * hvd.size()


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler, epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
