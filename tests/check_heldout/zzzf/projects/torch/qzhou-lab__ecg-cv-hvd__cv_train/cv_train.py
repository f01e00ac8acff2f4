#!/usr/bin/env python
# 5-fold CV for the ECG rhythm classifier, one Horovod job for all folds.
import argparse
import json
import os

import numpy as np
import torch
import yaml
import horovod.torch as hvd

from cvkit import FoldDataModule, Trainer
from cvkit.nets import ECGNet

parser = argparse.ArgumentParser(description="ECG k-fold CV")
parser.add_argument("--config", default="configs/default.yaml")
parser.add_argument("--epochs", type=int, default=None, help="override config epochs")
parser.add_argument("--only-fold", type=int, default=None)
args = parser.parse_args()

with open(args.config) as fh:
    cfg = yaml.safe_load(fh)
if args.epochs is not None:
    cfg["epochs"] = args.epochs

hvd.init()
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = ECGNet(**cfg["model"])
if hvd.rank() == 0:
    n_params = sum(p.numel() for p in model.parameters())
    print(f"ECGNet: {n_params/1e3:.1f}k params, {hvd.size()} workers, config={args.config}")
# make sure every worker starts from identical weights
hvd.broadcast_parameters(model.state_dict(), root_rank=0)

dm = FoldDataModule(cfg["data"], cfg["n_folds"], cfg["seed"], hvd.rank(), hvd.size())
folds = [args.only_fold] if args.only_fold is not None else range(cfg["n_folds"])

scores, oof = {}, {}
for fold in folds:
    trainer = Trainer(cfg, fold, dm, device)
    best, preds = trainer.fit()
    scores[fold] = best
    for part in hvd.allgather_object(preds):
        oof.update(part)

if hvd.rank() == 0:
    idx = np.array(sorted(oof))
    y = dm.y.numpy()[idx]
    p = np.array([oof[i] for i in idx])
    summary = {"fold_acc": scores, "cv_acc": float(np.mean(list(scores.values()))),
               "oof_acc": float((p == y).mean()), "n_oof": int(len(idx))}
    print(json.dumps(summary, indent=2))
    with open(os.path.join(cfg["out_dir"], "cv_summary.json"), "w") as fh:
        json.dump(summary, fh, indent=2)
