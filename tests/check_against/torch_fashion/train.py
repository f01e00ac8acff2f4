"""Train the classifier on Fashion-MNIST in one process.

    python train.py --epochs 2 --out model.pt
"""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import data
import net


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--subset", type=int, default=4096)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default="model.pt")
    return p.parse_args()


def main():
    args = parse()
    torch.manual_seed(args.seed)
    loader = DataLoader(data.train_set(args.subset), batch_size=args.batch_size, shuffle=True)
    model = net.make()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        model.train()
        for step, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            if step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
    torch.save(model.state_dict(), args.out)


if __name__ == "__main__":
    main()
