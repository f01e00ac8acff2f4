"""Binary arrhythmia detection on 10 s ECG segments (1D CNN), AUC over the whole validation set.

Predictions of every rank are gathered with hvd.allgather so the ROC-AUC is computed on the
full validation set rather than averaged per shard (AUC does not average).
"""
import argparse
import logging
import os

import numpy as np
import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

logger = logging.getLogger(__name__)


def build_model(n_leads=12):
    def conv(cin, cout, k):
        return nn.Sequential(nn.Conv1d(cin, cout, k, padding=k // 2), nn.BatchNorm1d(cout),
                             nn.ReLU(inplace=True), nn.MaxPool1d(2))
    return nn.Sequential(
        conv(n_leads, 32, 15), conv(32, 64, 9), conv(64, 128, 9), conv(128, 128, 5),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Dropout(0.3), nn.Linear(128, 1))


def load_split(root, split):
    x = np.load(os.path.join(root, f"{split}_x.npy"), mmap_mode="r")
    y = np.load(os.path.join(root, f"{split}_y.npy"))
    return TensorDataset(torch.from_numpy(np.ascontiguousarray(x)).float(), torch.from_numpy(y).float())


class AUCMeter:
    """Collects scores locally, gathers them from all ranks at compute()."""

    def __init__(self):
        self.scores, self.targets = [], []

    def update(self, logits, target):
        self.scores.append(torch.sigmoid(logits).detach().cpu())
        self.targets.append(target.detach().cpu())

    def compute(self):
        s = hvd.allgather(torch.cat(self.scores), name="auc_scores").numpy()
        t = hvd.allgather(torch.cat(self.targets), name="auc_targets").numpy()
        return roc_auc_score(t, s), len(t)


def evaluate(model, loader, device, loss_fn):
    model.eval()
    meter = AUCMeter()
    loss_sum = torch.zeros(2)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x).squeeze(1)
            loss_sum += torch.tensor([loss_fn(logits, y).item() * len(y), len(y)])
            meter.update(logits, y)
    auc, n = meter.compute()
    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="val_loss_sum")
    return auc, (loss_sum[0] / loss_sum[1]).item(), n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="/data/ecg/ptbxl_npy")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--accum", type=int, default=2)
    ap.add_argument("--max-lr", type=float, default=1e-3)
    ap.add_argument("--patience", type=int, default=8)
    ap.add_argument("--ckpt", default="ecg_best.pt")
    args = ap.parse_args()

    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format=f"[rank {hvd.rank()}] %(message)s")
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

    train_ds, val_ds = load_split(args.root, "train"), load_split(args.root, "val")
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=7)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256, sampler=val_sampler)

    pos = float(train_ds.tensors[1].mean())
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - pos) / pos, device=device))

    model = build_model().to(device)
    base_opt = torch.optim.AdamW(model.parameters(), lr=args.max_lr, weight_decay=1e-2)
    optimizer = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=args.accum)
    steps_per_epoch = len(train_loader) // args.accum
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.max_lr * hvd.size(), epochs=args.epochs,
        steps_per_epoch=steps_per_epoch, pct_start=0.2)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best_auc, wait = 0.0, 0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        optimizer.zero_grad()
        for i, (x, y) in enumerate(train_loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = loss_fn(model(x).squeeze(1), y) / args.accum
            loss.backward()
            if (i + 1) % args.accum == 0:
                optimizer.step()
                optimizer.zero_grad()
                if scheduler.last_epoch < args.epochs * steps_per_epoch - 1:
                    scheduler.step()

        auc, val_loss, n_val = evaluate(model, val_loader, device, loss_fn)
        logger.info("epoch %d val_loss %.4f val_auc %.4f (n=%d) lr %.2e",
                    epoch, val_loss, auc, n_val, scheduler.get_last_lr()[0])

        # every rank holds the same gathered AUC, so they all take the same decision
        if auc > best_auc:
            best_auc, wait = auc, 0
            if hvd.rank() == 0:
                torch.save({"epoch": epoch, "auc": auc, "model": model.state_dict()}, args.ckpt)
        else:
            wait += 1
            if wait >= args.patience:
                logger.info("no improvement for %d epochs, stopping", wait)
                break

    logger.info("best val AUC %.4f", best_auc)


if __name__ == "__main__":
    main()
