"""A small regression trainer on Horovod's PyTorch API, written for hvdkit check's class cases.

Every case in cases.py is this file with a few explicit edits; as it stands, all eight steps are right.
"""
import argparse
import os

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def build_data(samples):
    rng = np.random.default_rng(7)
    features = rng.normal(size=(samples, 4)).astype("float32")
    targets = features @ np.array([1.0, -2.0, 0.5, 3.0], dtype="float32")
    return TensorDataset(torch.from_numpy(features), torch.from_numpy(targets))


def run(opts):
    hvd.init()
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = build_data(opts.samples)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    train_loader = DataLoader(train_set, batch_size=opts.batch, sampler=train_sampler)

    net = torch.nn.Linear(4, 1).to(device)
    sgd = torch.optim.SGD(net.parameters(), lr=opts.base_lr * hvd.size())
    sgd = hvd.DistributedOptimizer(sgd, named_parameters=net.named_parameters())
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(sgd, root_rank=0)

    for epoch in range(opts.epochs):
        train_sampler.set_epoch(epoch)
        seen, total = 0, 0.0
        for inputs, targets in train_loader:
            inputs, targets = inputs.to(device), targets.to(device)
            sgd.zero_grad()
            error = torch.nn.functional.mse_loss(net(inputs).squeeze(1), targets)
            error.backward()
            sgd.step()
            seen += len(targets)
            total += error.item() * len(targets)
        sums = hvd.allreduce(torch.tensor([total, seen], dtype=torch.float64), op=hvd.Sum)
        if hvd.rank() == 0:
            print(f"epoch {epoch} mse {float(sums[0] / sums[1]):.5f}")
            torch.save(net.state_dict(), os.path.join(opts.out, f"net-{epoch}.pt"))


if __name__ == "__main__":
    cli = argparse.ArgumentParser()
    cli.add_argument("--samples", type=int, default=256)
    cli.add_argument("--batch", type=int, default=32)
    cli.add_argument("--epochs", type=int, default=2)
    cli.add_argument("--base-lr", type=float, default=0.05)
    cli.add_argument("--out", default=".")
    opts = cli.parse_args()
    run(opts)
