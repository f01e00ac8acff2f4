"""Linear evaluation: freeze a pre-trained encoder and fit a linear classifier on CIFAR-10.

Usage:
    horovodrun -np 4 python linear_probe.py --encoder-weights runs/simclr/encoder.weights.h5
"""
import argparse
import dataclasses
import json

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from probe.callbacks import build_callbacks
from probe.config import ProbeConfig
from probe.data import load_cifar10
from probe.model import build_probe


def get_config():
    cfg = ProbeConfig()
    p = argparse.ArgumentParser()
    p.add_argument("--encoder-weights", default=cfg.encoder_weights)
    p.add_argument("--epochs", type=int, default=cfg.epochs)
    p.add_argument("--batch-size", type=int, default=cfg.batch_size)
    p.add_argument("--lr", type=float, default=cfg.lr)
    p.add_argument("--out-dir", default=cfg.out_dir)
    a = p.parse_args()
    return dataclasses.replace(cfg, encoder_weights=a.encoder_weights, epochs=a.epochs,
                               batch_size=a.batch_size, lr=a.lr, out_dir=a.out_dir)


def main():
    cfg = get_config()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, val_ds, steps, val_steps = load_cifar10(cfg.batch_size)
    model = build_probe(cfg)

    scaled_lr = cfg.lr * hvd.size()
    opt = keras.optimizers.SGD(learning_rate=scaled_lr, momentum=0.9, nesterov=True)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    history = model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs,
                        validation_data=val_ds, validation_steps=val_steps,
                        callbacks=build_callbacks(cfg, scaled_lr),
                        verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        best = max(history.history["val_accuracy"])
        print(f"linear probe top-1: last {history.history['val_accuracy'][-1]:.4f}  best {best:.4f}")
        with open(f"{cfg.out_dir}/result.json", "w") as f:
            json.dump({"top1_last": history.history["val_accuracy"][-1], "top1_best": best,
                       "config": dataclasses.asdict(cfg)}, f, indent=2)


if __name__ == "__main__":
    main()
