# GIN graph classification on molecular property datasets (HIV / BACE style),
# data-parallel with Horovod.  Config: configs/*.json, overridable from the CLI.
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
import horovod.torch as hvd

from data.molgraphs import build_loaders
from gnn.dist_utils import gather_cat, sync_model
from gnn.model import GIN

DEFAULTS = dict(dataset="data/bace.npz", hidden=128, layers=4, dropout=0.2,
                batch_size=64, lr=1e-3, epochs=50, ckpt_dir="checkpoints")


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None)
    for k, v in DEFAULTS.items():
        parser.add_argument("--" + k, type=type(v), default=None)
    args = parser.parse_args()
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    cfg.update({k: v for k, v in vars(args).items() if v is not None and k != "config"})
    return argparse.Namespace(**cfg)


def binary_auc(y, s):
    order = np.argsort(-s)
    y = y[order]
    tp, fp = np.cumsum(y), np.cumsum(1 - y)
    if tp[-1] == 0 or fp[-1] == 0:
        return float("nan")
    return float(np.trapezoid(tp / tp[-1], fp / fp[-1]))


def run_epoch(model, loader, device, optimizer=None):
    train = optimizer is not None
    model.train(train)
    losses, scores, labels = [], [], []
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.set_grad_enabled(train):
            logits = model(batch["x"], batch["edge_index"], batch["graph_id"], batch["num_graphs"])
            loss = F.binary_cross_entropy_with_logits(logits, batch["y"])
        if train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        losses.append(loss.detach())
        scores.append(torch.sigmoid(logits).detach())
        labels.append(batch["y"])
    return torch.stack(losses).mean(), torch.cat(scores), torch.cat(labels)


def main():
    cfg = get_config()
    hvd.init()
    torch.manual_seed(cfg.__dict__.get("seed", 0))
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")

    train_loader, val_loader, train_sampler, in_dim = build_loaders(cfg.dataset, cfg.batch_size)
    model = GIN(in_dim, cfg.hidden, cfg.layers, cfg.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=1e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    sync_model(model, optimizer)

    best = 0.0
    for epoch in range(1, cfg.epochs + 1):
        t0 = time.time()
        train_sampler.set_epoch(epoch)
        tr_loss, _, _ = run_epoch(model, train_loader, device, optimizer)
        tr_loss = hvd.allreduce(tr_loss, name="train_loss").item()
        _, s, y = run_epoch(model, val_loader, device)
        s, y = gather_cat(s), gather_cat(y)
        val_auc = binary_auc(y.cpu().numpy(), s.cpu().numpy())
        if hvd.rank() == 0:
            print(f"[{epoch:03d}] loss={tr_loss:.4f} val_auc={val_auc:.4f} ({time.time() - t0:.1f}s)")
            if val_auc > best:
                best = val_auc
                os.makedirs(cfg.ckpt_dir, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(cfg.ckpt_dir, "gin_best.pt"))


if __name__ == "__main__":
    main()
