#!/usr/bin/env python
"""Prototypical Networks (Snell et al. 2017), episodic training with Horovod.

    horovodrun -np 4 python train.py --data data/omniglot28.npz --n-way 20
"""
import argparse
import os
import time

import numpy as np
import torch
import horovod.torch as hvd

from fewshot import dist
from fewshot.data import NpzFewShot, EpisodicBatchSampler
from fewshot.metrics import mean_ci95
from fewshot.model import Conv4, prototypical_loss


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/omniglot28.npz")
    p.add_argument("--n-way", type=int, default=5)
    p.add_argument("--k-shot", type=int, default=5)
    p.add_argument("--n-query", type=int, default=15)
    p.add_argument("--episodes", type=int, default=2000, help="episodes per epoch, summed over ranks")
    p.add_argument("--test-episodes", type=int, default=600)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--lr", type=float, default=1e-3, help="lr for one episode per step")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default="runs/protonet")
    return p.parse_args()


def loader(ds, args, n_episodes, seed):
    sampler = EpisodicBatchSampler(ds.labels, args.n_way, args.k_shot, args.n_query, n_episodes, seed=seed)
    return torch.utils.data.DataLoader(ds, batch_sampler=sampler, num_workers=2)


def evaluate(model, ds, args, device):
    model.eval()
    accs = []
    # each rank draws its own share of test episodes; all accuracies are gathered for the CI
    with torch.no_grad():
        for x, _ in loader(ds, args, args.test_episodes // hvd.size(), seed=10_000 + hvd.rank()):
            emb = model(x.to(device))
            n_s = args.n_way * args.k_shot
            accs.append(prototypical_loss(emb[:n_s], emb[n_s:], args.n_way, args.k_shot)[1].item())
    all_accs = hvd.allgather(torch.tensor(accs)).numpy()
    return mean_ci95(all_accs)


def main():
    args = get_args()
    device = dist.setup()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed + hvd.rank())

    train_set = NpzFewShot(args.data, "train")
    test_set = NpzFewShot(args.data, "test")

    model = Conv4(in_ch=train_set.x.shape[1]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
    dist.sync_initial_state(model, optimizer)

    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        for step, (x, _) in enumerate(loader(train_set, args, args.episodes // hvd.size(),
                                             seed=args.seed * 1000 + epoch * hvd.size() + hvd.rank())):
            emb = model(x.to(device))
            n_s = args.n_way * args.k_shot
            loss, acc = prototypical_loss(emb[:n_s], emb[n_s:], args.n_way, args.k_shot)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()

        mean, ci = evaluate(model, test_set, args, device)
        if dist.is_root():
            print(f"epoch {epoch} {time.time() - t0:.0f}s last loss {loss.item():.3f} "
                  f"test acc {100 * mean:.2f} +- {100 * ci:.2f}")
            if mean > best:
                best = mean
                os.makedirs(args.out, exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(), "acc": mean},
                           os.path.join(args.out, "best.pt"))


if __name__ == "__main__":
    main()
