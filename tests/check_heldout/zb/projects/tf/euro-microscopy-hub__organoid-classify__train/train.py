"""Organoid phenotype classifier (brightfield, 5 phenotypes) - two-stage transfer learning.

Stage "head": frozen backbone, new classifier head. Stage "full": everything trainable, lower lr.
    horovodrun -np 4 python train.py --config configs/organoids_bf.yaml
"""
import argparse

from orgcls.config import RunConfig
from orgcls.data import load_arrays, make_split
from orgcls.model import build_classifier
from orgcls.report import write_report
from orgcls.runtime import setup_runtime
from orgcls.stages import run_stage


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/organoids_bf.yaml")
    args = ap.parse_args()

    cfg = RunConfig.from_yaml(args.config)
    rank = setup_runtime()

    images, labels = load_arrays(cfg.data_npz)
    train_ds, val_ds, steps, val_steps = make_split(images, labels, cfg)
    model, backbone = build_classifier(images.shape[1:], cfg.n_classes)

    backbone.trainable = False
    run_stage(model, cfg, "head", train_ds, val_ds, steps, val_steps, epochs=cfg.head_epochs, lr=cfg.head_lr)
    backbone.trainable = True
    run_stage(model, cfg, "full", train_ds, val_ds, steps, val_steps, epochs=cfg.full_epochs, lr=cfg.full_lr)
    if rank == 0:
        report = write_report(model, images, labels, cfg)
        print(f"held-out accuracy {report['accuracy']:.4f}; best weights in {cfg.out_dir}")


if __name__ == "__main__":
    main()
