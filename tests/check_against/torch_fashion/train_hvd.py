"""Train the classifier on Fashion-MNIST with Horovod.

    horovodrun -np 4 python train_hvd.py --epochs 2 --out model.pt
"""
import argparse

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import data
import net


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32, help="per worker")
    p.add_argument("--lr", type=float, default=0.02, help="for one worker; scaled by the number of workers")
    p.add_argument("--subset", type=int, default=4096)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default="model.pt")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)

    train_set = data.train_set(args.subset)
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)

    model = net.make()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            if step % 20 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    if hvd.rank() == 0:
        torch.save(model.state_dict(), args.out)


if __name__ == "__main__":
    main()
