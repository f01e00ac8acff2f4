#!/usr/bin/env python3
"""Joint speaker-ID + emotion recognition (multi-task, shared encoder).

Usage: horovodrun -np 4 python train_multitask.py --train feats/train.npz --dev feats/dev.npz
"""
import argparse

import horovod.tensorflow.keras as hvd
import tensorflow as tf

from mtlk import model as mtl_model
from mtlk.data import load
from mtlk.train_utils import callbacks, compile_model


def get_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--train", default="feats/train.npz")
    p.add_argument("--dev", default="feats/dev.npz")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--clipnorm", type=float, default=5.0)
    p.add_argument("--augment", type=int, default=1, help="masked copies per utterance")
    p.add_argument("--run-dir", default="runs/mtl")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    for g in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(g, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_train, y_train = load(args.train, augment=args.augment, seed=1234)
    x_dev, y_dev = load(args.dev)

    model = mtl_model.build(input_dim=x_train.shape[-1])
    compile_model(model, mtl_model.LOSSES, mtl_model.LOSS_WEIGHTS, mtl_model.METRICS,
                  lr=args.lr * hvd.size(), clipnorm=args.clipnorm)
    if hvd.rank() == 0:
        model.summary()

    model.fit(x_train, y_train,
              batch_size=args.batch_size,
              epochs=args.epochs,
              validation_data=(x_dev, y_dev),
              callbacks=callbacks(args.run_dir),
              verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
