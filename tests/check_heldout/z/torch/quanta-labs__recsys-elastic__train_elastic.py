"""Elastic training of the two-tower retrieval model.

Runs on the spot pool:
  horovodrun -np 8 --min-np 4 --max-np 16 --host-discovery-script ./discover_hosts.sh \
      python train_elastic.py --data /mnt/recsys/interactions
Non-elastic runs (`horovodrun -np 4 python train_elastic.py`) work too: hvd.elastic.run just calls through.
"""
import argparse

import torch

import horovod.torch as hvd

from recsys.data import load_interactions, make_train_loader
from recsys.elastic_utils import build_state, save_on_rank0
from recsys.model import TwoTower, bpr_loss, recall_at_k

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/mnt/recsys/interactions")
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--batch-size", type=int, default=1024)
parser.add_argument("--lr", type=float, default=2e-3, help="per-worker lr, scaled by the current world size")
parser.add_argument("--batches-per-commit", type=int, default=50)
parser.add_argument("--ckpt", default="twotower.pt")
args = parser.parse_args()

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

train_set, val_pairs, n_users, n_items = load_interactions(args.data)
train_loader, train_sampler = make_train_loader(train_set, args.batch_size)

model = TwoTower(n_users, n_items).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def on_state_reset():
    # world size changed: keep lr proportional to the number of workers
    for group in optimizer.param_groups:
        group["lr"] = args.lr * hvd.size()


state = build_state(model, optimizer, train_sampler, on_state_reset)


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        state.model.train()
        state.train_sampler.set_epoch(state.epoch)
        for state.batch, (users, pos, neg) in enumerate(train_loader, start=state.batch):
            users, pos, neg = users.to(device), pos.to(device), neg.to(device)
            optimizer.zero_grad()
            loss = bpr_loss(*state.model(users, pos, neg))
            loss.backward()
            optimizer.step()
            state.train_sampler.record_batch(state.batch, args.batch_size)
            if state.batch % args.batches_per_commit == 0:
                state.commit()
        state.batch = 0

        if hvd.rank() == 0:
            # every rank holds the full validation pairs; rank 0 scores them all
            print(f"epoch {state.epoch} loss {loss.item():.4f} "
                  f"recall@20 {recall_at_k(state.model, val_pairs, n_items, k=20, device=device):.4f} "
                  f"workers {hvd.size()}")
        save_on_rank0(state.model, args.ckpt)
        state.commit()


train(state)
