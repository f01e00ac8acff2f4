# Train a SegFormer-style model on UAVid tiles with horovod
# usage: horovodrun -np 4 python train.py --config configs/uavid_mitb0.yaml
import os
import random

import numpy as np
import torch
import horovod.torch as hvd

from uavseg.config import get_config
from uavseg.trainer import Trainer


def main():
    cfg = get_config()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    # per-worker augmentation seed
    random.seed(cfg.seed + hvd.rank())
    np.random.seed(cfg.seed + hvd.rank())
    torch.manual_seed(cfg.seed)

    if hvd.rank() == 0:
        print(cfg)
    trainer = Trainer(cfg)
    trainer.fit()


if __name__ == "__main__":
    main()
