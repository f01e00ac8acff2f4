"""Tiny NeRF on the Blender synthetic scenes, data-parallel over rays with Horovod.

    horovodrun -np 4 python run_nerf.py --datadir data/lego_200.npz --expname lego
"""
import argparse
from dataclasses import dataclass

import numpy as np
import torch

import horovod.torch as hvd

from nerf import NeRFMLP, Trainer
from nerf.rays import all_rays, intrinsics, load_blender_npz
from nerf.utils import Timer


@dataclass
class Config:
    datadir: str = "data/lego_200.npz"
    basedir: str = "logs"
    expname: str = "lego"
    N_rand: int = 1024          # rays per process per step
    lrate: float = 5e-4
    lrate_decay: int = 250      # in thousands of steps
    n_samples: int = 64
    n_iters: int = 200000
    i_print: int = 100
    i_val: int = 2500
    i_weights: int = 10000
    holdout: int = 8            # every k-th image is held out for validation
    seed: int = 0


def config_from_cli():
    cfg = Config()
    parser = argparse.ArgumentParser()
    for name, value in vars(cfg).items():
        parser.add_argument(f"--{name}", type=type(value), default=value)
    return Config(**vars(parser.parse_args()))


def main():
    cfg = config_from_cli()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.manual_seed(cfg.seed)

    images, poses, focal = load_blender_npz(cfg.datadir)
    H, W = images.shape[1:3]
    K = intrinsics(H, W, focal)
    val_idx = np.arange(0, len(images), cfg.holdout)
    train_idx = np.setdiff1d(np.arange(len(images)), val_idx)

    rays = all_rays(images[train_idx], poses[train_idx], K)
    n_per_rank = rays.shape[0] // hvd.size()
    rays = rays[hvd.rank() * n_per_rank:(hvd.rank() + 1) * n_per_rank]
    val_rays = all_rays(images[val_idx[:1]], poses[val_idx[:1]], K)

    trainer = Trainer(NeRFMLP(), cfg, device)
    g = torch.Generator().manual_seed(cfg.seed + hvd.rank())
    perm, ptr = torch.randperm(rays.shape[0], generator=g), 0
    timer = Timer()
    for it in range(1, cfg.n_iters + 1):
        if ptr + cfg.N_rand > rays.shape[0]:
            perm, ptr = torch.randperm(rays.shape[0], generator=g), 0
        batch = rays[perm[ptr:ptr + cfg.N_rand]]
        ptr += cfg.N_rand
        loss = trainer.train_step(batch)

        if it % cfg.i_print == 0 and hvd.rank() == 0:
            print(f"[TRAIN] iter {it} loss {loss:.5f} ({timer.lap():.1f}s)", flush=True)
        if it % cfg.i_val == 0 and hvd.rank() == 0:
            print(f"[VAL] iter {it} psnr {trainer.eval_image(val_rays):.2f}", flush=True)
        if it % cfg.i_weights == 0:
            print("saved", trainer.save())


if __name__ == "__main__":
    main()
