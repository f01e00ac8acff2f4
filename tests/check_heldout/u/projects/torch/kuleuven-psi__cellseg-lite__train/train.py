"""Fine-tune the generic cell model on PSI microscopy crops.

    mpirun -np 4 python train.py --config configs/psi_cyto.yaml
"""
import argparse
import random

import numpy as np
import torch

from lib.config import TrainConfig
from lib.dist_utils import is_main, setup
from lib.trainer import Trainer
import horovod.torch as hvd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--pretrained", default=None)
    ap.add_argument("--out-dir", dest="out_dir", default=None)
    args = ap.parse_args()
    cfg = TrainConfig.from_yaml(args.config, epochs=args.epochs, lr=args.lr, pretrained=args.pretrained,
                                out_dir=args.out_dir)

    device = setup()
    # different augmentation stream on every worker
    seed = cfg.seed + hvd.rank()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    if is_main():
        print(cfg)
    Trainer(cfg, device).fit()


if __name__ == "__main__":
    main()
