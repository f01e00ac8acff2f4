"""PointNet semantic segmentation on S3DIS, data-parallel with Horovod.

    horovodrun -np 8 python train.py                       # configs/default.yaml
    horovodrun -np 8 python train.py --cfg configs/default.yaml --set train.epochs=60 --resume runs/x/last.pth
"""
import argparse
import os

import horovod.torch as hvd
import torch
import yaml

from pcseg import Engine, PointNetSeg
from pcseg.data import build_loaders

HERE = os.path.dirname(os.path.abspath(__file__))


def load_cfg(path, overrides):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    for item in overrides:
        key, val = item.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node[p]
        node[leaf] = yaml.safe_load(val)
    return cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=os.path.join(HERE, "configs", "default.yaml"))
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VAL")
    ap.add_argument("--resume", default="")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cfg = load_cfg(args.cfg, args.set)

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
        cfg["train"]["amp"] = False
    torch.manual_seed(args.seed)

    train_loader, test_loader = build_loaders(cfg, hvd.size(), hvd.rank())
    model = PointNetSeg(cfg["model"]["in_channels"], cfg["model"]["num_classes"], cfg["model"]["dropout"]).to(device)
    engine = Engine(cfg, model, train_loader, test_loader, device)
    engine.resume(args.resume)
    if hvd.rank() == 0:
        print(f"{hvd.size()} workers, {len(train_loader.dataset)} train blocks, start epoch {engine.start_epoch}")
    best = engine.fit()
    if hvd.rank() == 0:
        print(f"done, best mIoU {best:.4f}")


if __name__ == "__main__":
    main()
