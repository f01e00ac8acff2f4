"""Churn propensity model - training job.

Launched by the platform as `horovodrun -np $WORLD python train.py`; the pipeline's smoke stage
imports `run()` directly with its own TrainConfig.
"""
import logging
import sys

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from common import dist, storage
from common.config import TrainConfig
from common.tracking import Tracker
from churn.data import make_loaders
from churn.model import ChurnNet

log = logging.getLogger("jobs.churn")


def evaluate(model, loader, device):
    model.eval()
    totals = torch.zeros(3)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            totals[0] += F.binary_cross_entropy_with_logits(logits, y, reduction="sum").item()
            totals[1] += ((logits > 0).float() == y).sum().item()
            totals[2] += y.numel()
    totals = hvd.allreduce(totals, op=hvd.Sum, name="eval_totals")
    return {"val_loss": (totals[0] / totals[2]).item(), "val_acc": (totals[1] / totals[2]).item()}


def run(cfg: TrainConfig):
    device = dist.setup()
    torch.manual_seed(cfg.seed)
    train_loader, val_loader, train_sampler = make_loaders(cfg, hvd.size(), hvd.rank())
    n_features = train_loader.dataset.tensors[0].shape[1]

    model = ChurnNet(n_features, cfg.hidden).to(device)
    # cfg.global_batch_size is fixed and split across ranks, so the tuned lr stays as is
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    start_epoch = 0
    if cfg.resume_from and dist.is_chief():
        start_epoch = storage.load_checkpoint(cfg.resume_from, model, optimizer)
        log.info("resumed from %s at epoch %d", cfg.resume_from, start_epoch)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    optimizer = dist.wrap_and_sync(model, optimizer)

    tracker = Tracker(cfg.experiment, enabled=dist.is_chief())
    tracker.log_params({"world_size": hvd.size(), "global_batch_size": cfg.global_batch_size, "lr": cfg.lr})
    metrics = {}
    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(x), y)
            loss.backward()
            optimizer.step()
        metrics = evaluate(model, val_loader, device)
        tracker.log_metrics(metrics, step=epoch)
        storage.save_checkpoint(cfg.checkpoint_uri, epoch, model, optimizer)
    tracker.close()
    return metrics


def main():
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    run(TrainConfig.from_env())
    return 0


if __name__ == "__main__":
    sys.exit(main())
