"""SimCLR pre-training on ImageNet-100 with Horovod.

Cluster recipe (4 nodes x 4 V100, 16 ranks):
    horovodrun -np 16 -H n1:4,n2:4,n3:4,n4:4 python pretrain.py --data /datasets/in100/train

Per-GPU batch 64, 2 backward passes per step -> 2048 images per optimizer step.
"""
import argparse
import os

import torch
import horovod.torch as hvd

from simclr.config import Config
from simclr.data import build_pretrain_loader
from simclr.engine import Trainer
from simclr.model import SimCLR


def parse_args():
    p = argparse.ArgumentParser(description="SimCLR (hvd)")
    p.add_argument("--data", required=True)
    p.add_argument("--out", default="runs/simclr_in100")
    p.add_argument("--epochs", type=int)
    p.add_argument("--batch-size", type=int, help="images per GPU")
    p.add_argument("--accum", type=int, help="backward passes per optimizer step")
    p.add_argument("--no-amp", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    cfg = Config.from_args(args)

    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True

    loader, sampler = build_pretrain_loader(cfg, rank=hvd.rank(), world_size=hvd.size())
    model = SimCLR(width=cfg.width, proj_dim=cfg.proj_dim)

    if hvd.rank() == 0:
        os.makedirs(cfg.out, exist_ok=True)
        print(f"[simclr] {hvd.size()} ranks, {len(loader)} steps/epoch, cfg={cfg}")

    trainer = Trainer(cfg, model)
    trainer.fit(loader, sampler)


if __name__ == "__main__":
    main()
