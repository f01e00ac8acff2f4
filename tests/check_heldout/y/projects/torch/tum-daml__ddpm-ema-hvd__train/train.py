"""DDPM training on CIFAR-10 / CelebA-64 with EMA weights, multi-node via Horovod.

    mpirun -np 8 -bind-to none -map-by slot -x NCCL_DEBUG=INFO python train.py --config cifar10
"""
import argparse

import torch
import horovod.torch as hvd

from diffusion import Trainer, UNet
from diffusion.config import PRESETS
from diffusion.data import make_loader


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="cifar10", choices=sorted(PRESETS))
    ap.add_argument("--data-root", default="/scratch/datasets")
    ap.add_argument("--workdir", default="./work")
    ap.add_argument("--resume", default="")
    return ap.parse_args()


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())

    cfg = PRESETS[args.config]
    cfg.workdir = args.workdir
    torch.manual_seed(cfg.seed)

    # the paper's global batch (128) is kept fixed and split over the ranks
    per_rank_batch = cfg.global_batch // hvd.size()
    loader, sampler = make_loader(cfg, args.data_root, per_rank_batch, hvd.rank(), hvd.size())

    net = UNet(ch=cfg.channels, ch_mult=cfg.ch_mult)
    trainer = Trainer(net, cfg)
    if args.resume:
        trainer.load(args.resume)
    trainer.sync()
    trainer.run(loader, sampler)


if __name__ == "__main__":
    main()
