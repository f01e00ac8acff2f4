"""Elastic Horovod training of an MPNN on a molecular regression target.

    horovodrun -np 8 --min-np 4 --max-np 16 --host-discovery-script ./discover_hosts.sh \
        python main.py --train data/qm9_train.pkl --valid data/qm9_valid.pkl
"""
import argparse
import os

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset
import horovod.torch as hvd

from molgraph.data import MoleculeSet, collate_graphs
from molgraph.io import load_checkpoint, save_checkpoint
from molgraph.metrics import RegressionMeter
from molgraph.model import MPNN

parser = argparse.ArgumentParser()
parser.add_argument("--train", default="data/qm9_train.pkl")
parser.add_argument("--valid", default="data/qm9_valid.pkl")
parser.add_argument("--ckpt", default="runs/mpnn/last.pt")
parser.add_argument("--resume", action="store_true")
parser.add_argument("--epochs", type=int, default=200)
parser.add_argument("--batch-size", type=int, default=64)
parser.add_argument("--base-lr", type=float, default=5e-4)
parser.add_argument("--commit-every", type=int, default=200)
parser.add_argument("--dim", type=int, default=128)
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()

hvd.init()
use_cuda = not args.no_cuda and torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

train_set = MoleculeSet(args.train)
valid_set = MoleculeSet(args.valid, train_set.mean, train_set.std)
train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True, seed=17)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                          collate_fn=collate_graphs, num_workers=2)

model = MPNN(dim=args.dim).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

start_epoch, best = 0, float("inf")
if args.resume and hvd.rank() == 0 and os.path.exists(args.ckpt):
    start_epoch, best = load_checkpoint(args.ckpt, model, optimizer)


def validate():
    model.eval()
    # re-partitioned every time: the number of workers can change between calls
    part = Subset(valid_set, range(hvd.rank(), len(valid_set), hvd.size()))
    meter = RegressionMeter(valid_set.std)
    with torch.no_grad():
        for atoms, edges, bonds, gidx, y in DataLoader(part, batch_size=256, collate_fn=collate_graphs):
            pred = model(atoms.to(device), edges.to(device), bonds.to(device), gidx.to(device), y.numel())
            meter.update(pred, y)
    return meter.compute("valid_stats")


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        model.train()
        for batch_idx, (atoms, edges, bonds, gidx, y) in enumerate(train_loader):
            pred = model(atoms.to(device), edges.to(device), bonds.to(device), gidx.to(device), y.numel())
            loss = F.smooth_l1_loss(pred, y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            state.train_sampler.record_batch(batch_idx, args.batch_size)
            if batch_idx % args.commit_every == 0:
                state.commit()

        metrics = validate()
        if metrics["mae"] < state.best:
            state.best = metrics["mae"]
        if hvd.rank() == 0:
            print(f"epoch {state.epoch}: valid MAE {metrics['mae']:.4f} RMSE {metrics['rmse']:.4f} "
                  f"(best {state.best:.4f}, {hvd.size()} workers)", flush=True)
        save_checkpoint(args.ckpt, model, optimizer, state.epoch, state.best)
        state.train_sampler.set_epoch(state.epoch + 1)
        state.commit()


def on_reset():
    # the number of workers changed: rescale the lr for the new world size
    for group in optimizer.param_groups:
        group["lr"] = args.base_lr * hvd.size()


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler,
                               epoch=start_epoch, best=best)
state.register_reset_callbacks([on_reset])
train(state)
