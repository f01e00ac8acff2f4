"""x-vector speaker embeddings, multi-GPU with Horovod.

    horovodrun -np 4 python train.py --conf conf/xvector.yaml
"""
import argparse
import random

import numpy as np
import torch
import horovod.torch as hvd

from spkr.config import Config
from spkr.data import train_loader
from spkr.env import setup_device
from spkr.runner import Runner


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--conf", default="conf/xvector.yaml")
    args = ap.parse_args()
    cfg = Config.from_yaml(args.conf)

    hvd.init()
    device = setup_device(cfg)
    # different crops / augmentation on every worker; the model itself is broadcast from rank 0
    random.seed(cfg.seed + hvd.rank())
    np.random.seed(cfg.seed + hvd.rank())
    torch.manual_seed(cfg.seed)

    loader = train_loader(cfg, hvd.rank(), hvd.size())
    runner = Runner(cfg, device)
    for epoch in range(cfg.optim.epochs):
        loss = runner.train_epoch(loader, epoch)
        if hvd.rank() == 0:
            eer = runner.evaluate()
            print(f"epoch {epoch}: train loss (rank 0) {loss:.3f}  dev EER {eer * 100:.2f}%", flush=True)
            runner.save(epoch)


if __name__ == "__main__":
    main()
