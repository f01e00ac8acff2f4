#!/usr/bin/env python
# Keras segmentation template -- multi-GPU with horovod
#   horovodrun -np 4 python train.py configs/unet_256.yaml
import sys

import horovod.tensorflow.keras as hvd

from segkit import dist
from segkit.config import Config
from segkit.data import build_datasets
from segkit.models import MODEL_ZOO, get_optimizer
from segkit.trainer import SegTrainer


def main(cfg_path):
    hvd.init()
    dist.pin_gpu()

    cfg = Config.load(cfg_path)
    cfg = dist.sync_config(cfg)          # every worker must run the exact same experiment
    dist.print0("config:", cfg)

    train_ds, val_ds, steps, val_steps = build_datasets(cfg)

    model = MODEL_ZOO[cfg.model.name](**cfg.model.kwargs)
    base_lr = cfg.optimizer.lr
    cfg.optimizer.lr = base_lr * hvd.size()
    optimizer = hvd.DistributedOptimizer(get_optimizer(cfg.optimizer))

    trainer = SegTrainer(cfg, model, optimizer)
    trainer.fit(train_ds, val_ds, steps, val_steps)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/unet_256.yaml")
