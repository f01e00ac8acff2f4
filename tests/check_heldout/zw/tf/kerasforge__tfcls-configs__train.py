"""tfcls: config-driven Keras classification training with Horovod.

Usage:
    horovodrun -np 4 python train.py --config resnet20_cifar10 --override train.epochs=50
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from tfcls.config import load_config, apply_overrides
from tfcls.builders import build_model, build_optimizer
from tfcls.data import build_datasets
from tfcls.callbacks import build_callbacks


def setup_horovod():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="resnet20_cifar10")
    parser.add_argument("--override", nargs="*", default=[])
    parser.add_argument("--workdir", default="./workdir")
    args = parser.parse_args()

    rank, world = setup_horovod()
    cfg = apply_overrides(load_config(args.config), args.override)
    if rank == 0:
        print(f"[tfcls] {world} workers, config = {cfg}")

    train_ds, val_ds, info = build_datasets(cfg["data"], rank=rank, world=world)
    model = build_model(cfg["model"], input_shape=info["input_shape"], num_classes=info["num_classes"])
    optimizer = build_optimizer(cfg["optimizer"], world_size=world)
    model.compile(optimizer=optimizer,
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = build_callbacks(cfg, workdir=os.path.join(args.workdir, args.config),
                                steps_per_epoch=info["train_steps"], is_chief=(rank == 0))
    model.fit(train_ds,
              epochs=cfg["train"]["epochs"],
              steps_per_epoch=info["train_steps"],
              validation_data=val_ds,
              validation_steps=info["val_steps"],
              callbacks=callbacks,
              verbose=2 if rank == 0 else 0)


if __name__ == "__main__":
    main()
