"""GraphSAGE-style node classifier on a METIS-partitioned graph.

The graph was split offline into hvd.size() parts (partition_graph.py); part k is
/scratch/graphs/products/part_k.pt with x, edge_index (local ids, halo nodes included),
y, train_mask, val_mask. Each rank trains full-batch on its own part.
"""
import os
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


@dataclass
class Config:
    root: str = "/scratch/graphs/products"
    hidden: int = 256
    layers: int = 3
    dropout: float = 0.5
    lr: float = 3e-3
    warmup_epochs: int = 5
    epochs: int = 300
    patience: int = 30
    ckpt: str = "gnn_ckpt.pt"


def mean_aggregate(x, edge_index, num_nodes):
    src, dst = edge_index
    out = torch.zeros(num_nodes, x.size(1), device=x.device)
    out.index_add_(0, dst, x[src])
    deg = torch.zeros(num_nodes, device=x.device).index_add_(0, dst, torch.ones_like(dst, dtype=x.dtype))
    return out / deg.clamp(min=1).unsqueeze(1)


class SAGELayer(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin_self = nn.Linear(cin, cout)
        self.lin_neigh = nn.Linear(cin, cout, bias=False)

    def forward(self, x, edge_index):
        return self.lin_self(x) + self.lin_neigh(mean_aggregate(x, edge_index, x.size(0)))


class SAGE(nn.Module):
    def __init__(self, cin, hidden, ncls, layers, dropout):
        super().__init__()
        dims = [cin] + [hidden] * (layers - 1) + [ncls]
        self.convs = nn.ModuleList(SAGELayer(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = F.dropout(F.relu(x), p=self.dropout, training=self.training)
        return x


def load_partition(cfg, rank, device):
    part = torch.load(os.path.join(cfg.root, f"part_{rank}.pt"))
    return {k: v.to(device) for k, v in part.items()}


def global_accuracy(logits, y, mask):
    correct = (logits[mask].argmax(-1) == y[mask]).sum().float()
    count = mask.sum().float()
    both = hvd.allreduce(torch.stack([correct, count]), op=hvd.Sum, name="acc_counts")
    return (both[0] / both[1]).item()


def run(cfg):
    hvd.init()
    local = hvd.local_rank()
    torch.cuda.set_device(local)
    device = torch.device(f"cuda:{local}")

    g = load_partition(cfg, hvd.rank(), device)
    num_classes = int(hvd.allreduce(g["y"].max().float(), op=hvd.Max, name="ncls").item()) + 1

    model = SAGE(g["x"].size(1), cfg.hidden, num_classes, cfg.layers, cfg.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    # ramp from the single-worker lr to size * lr over the first epochs
    warm = lambda e: (1.0 + (hvd.size() - 1.0) * min(1.0, e / cfg.warmup_epochs))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=warm)

    start_epoch = 0
    if hvd.rank() == 0 and os.path.exists(cfg.ckpt):
        state = torch.load(cfg.ckpt, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler.last_epoch = start_epoch - 1

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    best_val, bad_epochs = 0.0, 0
    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        optimizer.zero_grad()
        out = model(g["x"], g["edge_index"])
        loss = F.cross_entropy(out[g["train_mask"]], g["y"][g["train_mask"]])
        loss.backward()
        optimizer.step()
        scheduler.step()

        model.eval()
        with torch.no_grad():
            out = model(g["x"], g["edge_index"])
        train_acc = global_accuracy(out, g["y"], g["train_mask"])
        val_acc = global_accuracy(out, g["y"], g["val_mask"])
        avg_loss = hvd.allreduce(loss.detach(), name="loss").item()

        if val_acc > best_val:
            best_val, bad_epochs = val_acc, 0
            if hvd.rank() == 0:
                torch.save({"epoch": epoch, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict()}, cfg.ckpt)
        else:
            bad_epochs += 1

        if hvd.rank() == 0 and epoch % 10 == 0:
            print(f"epoch {epoch:4d} loss {avg_loss:.4f} train {train_acc:.4f} "
                  f"val {val_acc:.4f} best {best_val:.4f}")
        if bad_epochs >= cfg.patience:
            if hvd.rank() == 0:
                print(f"early stop at epoch {epoch}")
            break


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=Config.root)
    ap.add_argument("--epochs", type=int, default=Config.epochs)
    a = ap.parse_args()
    run(Config(root=a.root, epochs=a.epochs))
