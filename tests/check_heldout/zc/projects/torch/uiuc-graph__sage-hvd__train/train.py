"""GraphSAGE with neighbour sampling; the training function is started with horovod.run.

    python train.py --np 4 --epochs 20
"""
import argparse
from dataclasses import dataclass

import torch
import torch.nn.functional as F
import horovod
import horovod.torch as hvd

from graphs.hvd_utils import rank_partition, save_on_root, wrap_and_sync
from graphs.model import SAGE
from graphs.sampler import sample_blocks
from graphs.synthetic import planted_graph


@dataclass
class Config:
    np: int = 2
    epochs: int = 20
    batch_size: int = 256
    fanouts: tuple = (10, 5)
    hidden: int = 128
    lr: float = 3e-3
    graph_seed: int = 0
    out: str = "runs/sage/model.pt"


def train_fn(cfg):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(42)

    graph = planted_graph(seed=cfg.graph_seed)  # same graph and split on every worker
    my_train = rank_partition(graph.train_idx, hvd.rank(), hvd.size())
    gen = torch.Generator().manual_seed(1000 + hvd.rank())

    model = SAGE(graph.x.size(1), cfg.hidden, int(graph.y.max()) + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    optimizer = wrap_and_sync(model, optimizer)

    steps = len(my_train) // cfg.batch_size
    for epoch in range(cfg.epochs):
        model.train()
        order = my_train[torch.randperm(len(my_train), generator=gen)]
        for s in range(steps):
            seeds = order[s * cfg.batch_size:(s + 1) * cfg.batch_size]
            input_nodes, blocks = sample_blocks(graph, seeds, list(cfg.fanouts), gen)
            logits = model.forward_blocks(graph.x[input_nodes], blocks)
            loss = F.cross_entropy(logits, graph.y[seeds])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        if hvd.rank() == 0:
            # full-graph inference on the whole validation / test split, on one worker
            model.eval()
            pred = model.forward_full(graph).argmax(1)
            val_acc = (pred[graph.val_idx] == graph.y[graph.val_idx]).float().mean().item()
            test_acc = (pred[graph.test_idx] == graph.y[graph.test_idx]).float().mean().item()
            print(f"epoch {epoch:3d} loss {loss.item():.4f} val {val_acc:.4f} test {test_acc:.4f}")
    save_on_root(model, cfg.out)
    return hvd.rank()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int, default=Config.np)
    p.add_argument("--epochs", type=int, default=Config.epochs)
    p.add_argument("--lr", type=float, default=Config.lr)
    a = p.parse_args()
    cfg = Config(np=a.np, epochs=a.epochs, lr=a.lr)
    horovod.run(train_fn, args=(cfg,), np=cfg.np, use_gloo=True)


if __name__ == "__main__":
    main()
