#!/usr/bin/env python
"""fraud-mlp nightly retrain (k8s MPIJob, image ledgerline/ml-train:2.4).

All settings come from the job spec's env block; see deploy/mpijob.yaml.
"""
import json
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

ENV = {
    "DATA_PATH": os.environ.get("DATA_PATH", "/data/fraud/train.npz"),
    "OUTPUT_URI": os.environ.get("OUTPUT_URI", "/mnt/s3/ledgerline-models/fraud-mlp/latest"),
    "EPOCHS": int(os.environ.get("EPOCHS", "8")),
    "BATCH_SIZE": int(os.environ.get("BATCH_SIZE", "512")),
    "BASE_LR": float(os.environ.get("BASE_LR", "0.01")),
    "RUN_ID": os.environ.get("RUN_ID", time.strftime("%Y%m%d-%H%M")),
}

logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
log = logging.getLogger("fraud-mlp")


def build_model(n_in):
    return nn.Sequential(nn.Linear(n_in, 256), nn.ReLU(), nn.BatchNorm1d(256),
                         nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, 1))


def emit(event, **fields):
    log.info(json.dumps({"event": event, "run_id": ENV["RUN_ID"], **fields}))


def main():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    blob = np.load(ENV["DATA_PATH"])
    x = torch.tensor(blob["x"], dtype=torch.float32)
    y = torch.tensor(blob["y"], dtype=torch.float32)
    split = int(0.85 * len(x))
    train_ds, val_ds = TensorDataset(x[:split], y[:split]), TensorDataset(x[split:], y[split:])
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=ENV["BATCH_SIZE"], sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=ENV["BATCH_SIZE"], sampler=val_sampler)

    model = build_model(x.shape[1]).to(device)
    pos_weight = torch.tensor([(len(y) - y.sum()) / max(y.sum(), 1.0)], device=device)
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    optimizer = torch.optim.SGD(model.parameters(), lr=ENV["BASE_LR"] * hvd.size(), momentum=0.9, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best = float("inf")
    for epoch in range(ENV["EPOCHS"]):
        model.train()
        train_sampler.set_epoch(epoch)
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()

        model.eval()
        val_loss, n_seen, tp, fp, fn = 0.0, 0, 0, 0, 0
        with torch.no_grad():
            for xb, yb in val_loader:
                xb, yb = xb.to(device), yb.to(device)
                logits = model(xb).squeeze(1)
                val_loss += criterion(logits, yb).item() * len(yb)
                n_seen += len(yb)
                pred = (logits > 0).float()
                tp += int(((pred == 1) & (yb == 1)).sum())
                fp += int(((pred == 1) & (yb == 0)).sum())
                fn += int(((pred == 0) & (yb == 1)).sum())
        val_loss /= max(n_seen, 1)
        precision = tp / max(tp + fp, 1)
        recall = tp / max(tp + fn, 1)
        if hvd.rank() == 0:
            emit("epoch_end", epoch=epoch, val_loss=round(val_loss, 5), precision=round(precision, 4),
                 recall=round(recall, 4))

        if val_loss < best:
            best = val_loss
            os.makedirs(ENV["OUTPUT_URI"], exist_ok=True)
            torch.save({"epoch": epoch, "state_dict": model.state_dict(), "val_loss": val_loss},
                       os.path.join(ENV["OUTPUT_URI"], "best.pt"))
            emit("checkpoint", epoch=epoch, path=os.path.join(ENV["OUTPUT_URI"], "best.pt"))

    emit("done", best_val_loss=best, rank=hvd.rank())


if __name__ == "__main__":
    main()
