"""Mutant of base_torch.py, step 6 removed: no broadcast.

    mpirun -n 2 python tests/check_mutants/base_torch.py --ckpt-dir /tmp
"""
import argparse
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def make_data(n=64):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    return TensorDataset(x, (x.sum(1) > 0).long())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt-dir", default=".")
    args = parser.parse_args()
    hvd.init()
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(0)

    dataset = make_data()
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(dataset, batch_size=16, sampler=sampler)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size(), momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(2):
        sampler.set_epoch(epoch)
        loss_sum, count = 0.0, 0
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            loss_sum, count = loss_sum + loss.item() * len(y), count + len(y)
        totals = hvd.allreduce(torch.tensor([loss_sum, count]), op=hvd.Sum)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: loss {totals[0] / totals[1]:.4f}")
            torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "model.pt"))


if __name__ == "__main__":
    main()
