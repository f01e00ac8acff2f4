#!/usr/bin/env python
"""5-fold cross-validation of the dermoscopy lesion classifier.

Runs the folds inside one Horovod job started from Python (no horovodrun wrapper on the ward GPU box):
    python cv_train.py --config configs/isic_cv.yaml --np 4
"""
import argparse
import json
import os

import horovod

from lesioncv.config import CVConfig
from lesioncv.train_fold import run_all_folds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "configs", "isic_cv.yaml"))
    ap.add_argument("--np", type=int, default=4, help="number of worker processes")
    ap.add_argument("--folds", default="", help="comma separated subset, e.g. 0,3")
    args = ap.parse_args()

    cfg = CVConfig.load(args.config)
    folds = [int(f) for f in args.folds.split(",")] if args.folds else list(range(cfg.n_folds))
    results = horovod.run(run_all_folds, args=(cfg, folds), np=args.np, use_gloo=True)
    summary = results[0]          # rank 0 returns the per-fold metrics
    os.makedirs(cfg.out_dir, exist_ok=True)
    with open(os.path.join(cfg.out_dir, "cv_summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print("balanced accuracy per fold:", ", ".join(f"{m['bacc']:.3f}" for m in summary))


if __name__ == "__main__":
    main()
