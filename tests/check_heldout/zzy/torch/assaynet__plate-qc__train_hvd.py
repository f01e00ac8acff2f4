"""
Hit calling for 384-well HTS plates: an MLP on per-well readouts (normalised to plate controls).

Run with:  horovodrun -np 4 -H localhost:4 python train_hvd.py --wells data/wells.npz
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import horovod.torch as hvd

parser = argparse.ArgumentParser(description="plate-qc hit classifier (Horovod)")
parser.add_argument("--wells", type=str, default="data/wells.npz")
parser.add_argument("--holdout-plates", type=int, default=8, help="last N plates are validation")
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--save", type=str, default="models/plate_qc.pt")
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def robust_z(values, plate_ids, control_mask):
    """Per-plate robust z-score against the negative-control wells."""
    out = np.empty_like(values)
    for p in np.unique(plate_ids):
        m = plate_ids == p
        ctrl = values[m & control_mask]
        med = np.median(ctrl, axis=0)
        mad = np.median(np.abs(ctrl - med), axis=0) * 1.4826 + 1e-6
        out[m] = (values[m] - med) / mad
    return out


def average_precision(y, s):
    order = np.argsort(-s)
    y = y[order]
    tp = np.cumsum(y)
    precision = tp / np.arange(1, len(y) + 1)
    return float((precision * y).sum() / max(y.sum(), 1))


data = np.load(args.wells)
X = robust_z(data["readout"].astype(np.float32), data["plate"], data["is_neg_ctrl"].astype(bool))
y = data["hit"].astype(np.float32)
plates = np.unique(data["plate"])
val_mask = np.isin(data["plate"], plates[-args.holdout_plates:])
keep = ~data["is_neg_ctrl"].astype(bool)

train_ds = TensorDataset(torch.from_numpy(X[keep & ~val_mask]), torch.from_numpy(y[keep & ~val_mask]))
val_X, val_y = torch.from_numpy(X[keep & val_mask]), y[keep & val_mask]
train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, drop_last=True)

n_pos = float(train_ds.tensors[1].sum())
pos_weight = torch.tensor([(len(train_ds) - n_pos) / max(n_pos, 1.0)], device=device)
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)

model = nn.Sequential(
    nn.Linear(X.shape[1], 256), nn.ReLU(), nn.Dropout(0.3),
    nn.Linear(256, 64), nn.ReLU(),
    nn.Linear(64, 1),
).to(device)

optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.parameters(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

best_ap = 0.0
for epoch in range(args.epochs):
    model.train()
    for xb, yb in train_loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = criterion(model(xb).squeeze(1), yb)
        loss.backward()
        optimizer.step()

    # every worker scores the full holdout plates
    model.eval()
    with torch.no_grad():
        scores = torch.sigmoid(model(val_X.to(device)).squeeze(1)).cpu().numpy()
    ap = average_precision(val_y, scores)
    if hvd.rank() == 0:
        print("epoch %d  loss %.4f  holdout AUPRC %.4f (prevalence %.4f)"
              % (epoch, loss.item(), ap, val_y.mean()))
        if ap > best_ap:
            best_ap = ap
            os.makedirs(os.path.dirname(args.save), exist_ok=True)
            torch.save(model.state_dict(), args.save)
