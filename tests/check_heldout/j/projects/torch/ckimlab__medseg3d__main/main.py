"""3D U-Net for abdominal CT segmentation.

Single node:   horovodrun -np 4 python main.py --data /data/btcv_patches
Workstation:   python main.py --dp          (one process, nn.DataParallel over local GPUs)
"""
import argparse

from engine import Trainer


def get_parser():
    p = argparse.ArgumentParser(description="medseg3d")
    p.add_argument("--data", default="/data/btcv_patches")
    p.add_argument("--out", default="runs/unet3d")
    p.add_argument("--classes", type=int, default=3)
    p.add_argument("--epochs", type=int, default=300)
    p.add_argument("--global-batch", type=int, default=8, help="summed over all workers")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--val-every", type=int, default=10)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--resume", default=None)
    p.add_argument("--dp", action="store_true", help="DataParallel when run as a single process")
    p.add_argument("--no-cuda", action="store_true")
    return p


if __name__ == "__main__":
    Trainer(get_parser().parse_args()).fit()
