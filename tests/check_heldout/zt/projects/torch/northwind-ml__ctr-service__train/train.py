"""CTR model training job (DCN-lite) for the ads ranking service."""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from ctrsvc.checkpoint import load_checkpoint, save_checkpoint
from ctrsvc.decorators import timed
from ctrsvc.settings import Settings
from ctrsvc.tracking import RunTracker


class CrossNet(nn.Module):
    def __init__(self, dim, depth=3):
        super().__init__()
        self.cross = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.deep = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.head = nn.Linear(dim + 64, 1)

    def forward(self, x):
        x0, xc = x, x
        for layer in self.cross:
            xc = x0 * layer(xc) + xc
        return self.head(torch.cat([xc, self.deep(x)], dim=1)).squeeze(1)


def read_shards(paths):
    arrays = [np.load(p) for p in paths]
    x = np.concatenate([a["x"] for a in arrays]).astype(np.float32)
    y = np.concatenate([a["y"] for a in arrays]).astype(np.float32)
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


@timed
def run_epoch(model, loader, optimizer, loss_fn):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


def validate(model, loader, loss_fn):
    model.eval()
    total, count = torch.zeros(()), torch.zeros(())
    with torch.no_grad():
        for x, y in loader:
            total += loss_fn(model(x), y) * y.numel()
            count += y.numel()
    total = hvd.allreduce(total, op=hvd.Sum, name="val_loss_sum")
    count = hvd.allreduce(count, op=hvd.Sum, name="val_count")
    return (total / count).item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="conf/ctr.json")
    parser.add_argument("overrides", nargs="*", help="key=value")
    args = parser.parse_args()
    cfg = Settings.from_sources(args.config if os.path.exists(args.config) else None, args.overrides)

    tracker = RunTracker(cfg.experiment, cfg.run_name, root=cfg.tracking_dir)
    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    tracker.log_params(cfg.to_dict())

    train_set, val_set = read_shards(cfg.train_shards), read_shards(cfg.val_shards)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler)

    model = CrossNet(cfg.num_features)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=cfg.lr * hvd.size())
    start = 0
    if os.path.exists(cfg.ckpt_path):
        start = load_checkpoint(cfg.ckpt_path, model, optimizer)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    loss_fn = nn.BCEWithLogitsLoss()

    for epoch in range(start, cfg.epochs):
        train_sampler.set_epoch(epoch)
        last_loss = run_epoch(model, train_loader, optimizer, loss_fn)
        val_loss = validate(model, val_loader, loss_fn)
        tracker.log_metrics({"train_loss": last_loss, "val_loss": val_loss}, step=epoch)
        tracker.heartbeat(epoch=epoch, epoch_seconds=run_epoch.last_seconds)
        save_checkpoint(cfg.ckpt_path, model, optimizer, epoch)


if __name__ == "__main__":
    main()
