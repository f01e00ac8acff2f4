"""CIFAR-10 ResNet-ish model, Keras + Horovod. Day 2 of the DL@Scale school on Perlmutter.

    srun -n 8 --gpus-per-task=1 python train.py --config small
"""
import argparse

import horovod.tensorflow.keras as hvd

from utils.callbacks import build_callbacks
from utils.config import CONFIGS
from utils.data import get_datasets
from utils.hpc import setup_horovod
from utils.model import build_model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="small", choices=sorted(CONFIGS))
    parser.add_argument("--epochs", type=int, default=None, help="override the config")
    args = parser.parse_args()
    cfg = CONFIGS[args.config]
    if args.epochs:
        cfg.epochs = args.epochs

    setup_horovod()
    train_ds, val_ds, steps, val_steps = get_datasets(cfg)

    model = build_model(cfg)
    opt = cfg.make_optimizer(scale=hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=build_callbacks(cfg), verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
