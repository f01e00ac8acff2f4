"""Two-tower retrieval model (user tower / item tower, in-batch softmax).

Backend is chosen with DIST_BACKEND (horovod | torch | local); horovod is the default
because that's what the training cluster image ships with.
"""
import argparse
import logging
import os
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

BACKEND = os.environ.get("DIST_BACKEND", "horovod")
if BACKEND == "horovod":
    import horovod.torch as hvd
elif BACKEND == "torch":
    import torch.distributed as dist

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
logger = logging.getLogger("twotower")


@dataclass
class Args:
    n_users: int = 20000
    n_items: int = 50000
    n_interactions: int = 200000
    dim: int = 64
    batch_size: int = 1024
    lr: float = 1e-3
    epochs: int = 5
    temperature: float = 0.05
    output: str = "artifacts/twotower.pt"


def dist_init():
    if BACKEND == "horovod":
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        return hvd.rank(), hvd.size()
    if BACKEND == "torch":
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        if torch.cuda.is_available():
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class Tower(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.ReLU(), nn.Linear(dim * 2, dim))

    def forward(self, ids):
        return F.normalize(self.mlp(self.emb(ids)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, a: Args):
        super().__init__()
        self.user, self.item = Tower(a.n_users, a.dim), Tower(a.n_items, a.dim)

    def forward(self, u, i):
        return self.user(u), self.item(i)


def load_interactions(a: Args, seed):
    rng = np.random.default_rng(seed)
    users = torch.from_numpy(rng.integers(0, a.n_users, a.n_interactions))
    items = torch.from_numpy((users.numpy() * 7 + rng.integers(0, 50, a.n_interactions)) % a.n_items)
    return TensorDataset(users, items)


@torch.no_grad()
def recall_at_k(model, loader, device, k=50):
    model.eval()
    hits = total = 0
    item_vecs = model.item(torch.arange(model.item.emb.num_embeddings, device=device))
    for u, i in loader:
        scores = model.user(u.to(device)) @ item_vecs.T
        topk = scores.topk(k, dim=1).indices.cpu()
        hits += (topk == i.unsqueeze(1)).any(1).sum().item()
        total += len(i)
    return hits / max(total, 1)


def main():
    parser = argparse.ArgumentParser()
    for name, value in vars(Args()).items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    a = Args(**vars(parser.parse_args()))

    rank, world = dist_init()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set, val_set = load_interactions(a, seed=0), load_interactions(a, seed=1)
    val_set = torch.utils.data.Subset(val_set, range(20000))
    train_loader = DataLoader(train_set, batch_size=a.batch_size, drop_last=True,
                              sampler=DistributedSampler(train_set, num_replicas=world, rank=rank))
    val_loader = DataLoader(val_set, batch_size=2048,
                            sampler=DistributedSampler(val_set, num_replicas=world, rank=rank, shuffle=False))

    model = TwoTower(a).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=a.lr * world)

    if BACKEND == "horovod":
        hvd.broadcast_parameters(model.named_parameters(), root_rank=0)
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    elif BACKEND == "torch":
        model = nn.parallel.DistributedDataParallel(model)

    for epoch in range(a.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for step, (u, i) in enumerate(train_loader):
            u, i = u.to(device), i.to(device)
            uv, iv = model(u, i)
            logits = uv @ iv.T / a.temperature
            loss = F.cross_entropy(logits, torch.arange(len(u), device=device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if rank == 0 and step % 50 == 0:
                logger.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        net = model.module if hasattr(model, "module") else model
        recall = recall_at_k(net, val_loader, device)
        if rank == 0:
            logger.info("epoch %d recall@50 %.4f", epoch, recall)
            os.makedirs(os.path.dirname(a.output), exist_ok=True)
            torch.save({"epoch": epoch, "model": net.state_dict(), "recall@50": recall}, a.output)


if __name__ == "__main__":
    main()
