# CPU-only training of an MLP classifier on the HIGGS tabular data set with elastic Horovod.
# Runs on the cluster's CPU partition (spot nodes that come and go):
#   horovodrun -np 8 --min-np 4 --max-np 16 --host-discovery-script ./discover_hosts.sh \
#       python 07_cpu_elastic_tabular.py --csv /data/higgs/HIGGS_train.csv
import argparse
import os
import time

import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import horovod.torch as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--csv", default="/data/higgs/HIGGS_train.csv")
ap.add_argument("--val-csv", default="/data/higgs/HIGGS_val.csv")
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--batch-size", type=int, default=1024)
ap.add_argument("--base-lr", type=float, default=1e-3)
ap.add_argument("--commit-every", type=int, default=200)
ap.add_argument("--ckpt", default="higgs_mlp.pt")
args = ap.parse_args()

hvd.init()
# several workers share a node: split the cores between them
torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))


def load(path):
    df = pd.read_csv(path, header=None)
    y = torch.tensor(df[0].values, dtype=torch.float32)
    x = torch.tensor(df.drop(columns=[0]).values, dtype=torch.float32)
    return x, y


x_train, y_train = load(args.csv)
x_val, y_val = load(args.val_csv)
mu, sd = x_train.mean(0), x_train.std(0) + 1e-6
x_train, x_val = (x_train - mu) / sd, (x_val - mu) / sd
train_ds = TensorDataset(x_train, y_train)

model = nn.Sequential(
    nn.Linear(x_train.shape[1], 300), nn.Tanh(),
    nn.Linear(300, 300), nn.Tanh(),
    nn.Linear(300, 300), nn.Tanh(),
    nn.Linear(300, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=args.base_lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
criterion = nn.BCEWithLogitsLoss()

sampler = hvd.elastic.ElasticSampler(train_ds, shuffle=True)
loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler)


def evaluate():
    """Each worker scores a strided slice of the validation set; totals are summed."""
    model.eval()
    idx = torch.arange(hvd.rank(), len(x_val), hvd.size())
    with torch.no_grad():
        logits = model(x_val[idx]).squeeze(1)
        loss_sum = nn.functional.binary_cross_entropy_with_logits(
            logits, y_val[idx], reduction="sum")
        correct = ((logits > 0).float() == y_val[idx]).sum()
    model.train()
    totals = hvd.allreduce(torch.stack([loss_sum, correct, torch.tensor(float(len(idx)))]),
                           op=hvd.Sum, name="val_totals")
    return (totals[0] / totals[2]).item(), (totals[1] / totals[2]).item()


@hvd.elastic.run
def train(state):
    while state.epoch < args.epochs:
        t0 = time.time()
        seen = 0
        for batch_idx, (xb, yb) in enumerate(loader):
            state.batch = batch_idx
            optimizer.zero_grad()
            loss = criterion(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            seen += xb.size(0)
            state.train_sampler.record_batch(batch_idx, args.batch_size)
            if batch_idx % args.commit_every == 0:
                state.commit()

        val_loss, val_acc = evaluate()
        if hvd.rank() == 0:
            print(f"epoch {state.epoch} | workers {hvd.size()} | val loss {val_loss:.4f} "
                  f"acc {val_acc:.4f} | {seen / (time.time() - t0):.0f} samples/s/worker")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": state.epoch, "mu": mu, "sd": sd}, args.ckpt)
        state.epoch += 1
        state.batch = 0
        state.train_sampler.set_epoch(state.epoch)
        state.commit()


def on_state_reset():
    # the number of workers changed: keep lr proportional to the current world size
    for group in optimizer.param_groups:
        group["lr"] = args.base_lr * hvd.size()
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=sampler,
                               epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)

if hvd.rank() == 0:
    print("done")
