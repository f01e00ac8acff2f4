#!/usr/bin/env python
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from outfit.data import load_catalogue, make_dataset
from outfit.model import two_tower
from outfit.optim import build_optimizer
from outfit.text import build_vectorizer, vocabulary_report


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="/datasets/fashion200k_feats")
    parser.add_argument("--batch-size", type=int, default=96)
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--lr", type=float, default=5e-4, help="base learning rate")
    parser.add_argument("--vocab", type=int, default=15000)
    parser.add_argument("--model-dir", default="models/outfit")
    return parser.parse_args()


if __name__ == "__main__":
    args = get_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_img, x_txt = load_catalogue(args.root, "train")
    v_img, v_txt = load_catalogue(args.root, "val")
    vec = build_vectorizer(x_txt, args.vocab)
    if hvd.rank() == 0:
        print(vocabulary_report(vec))

    train_ds = make_dataset(x_img, x_txt, args.batch_size)
    val_ds = make_dataset(v_img, v_txt, args.batch_size, training=False)
    steps_per_epoch = len(x_img) // args.batch_size

    model = two_tower(x_img.shape[1], vec)
    model.compile(optimizer=build_optimizer(args.lr * hvd.size(), steps_per_epoch * args.epochs),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseTopKCategoricalAccuracy(k=5, name="r@5")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(args.model_dir, exist_ok=True)
        callbacks += [keras.callbacks.ModelCheckpoint(os.path.join(args.model_dir, "best.keras"),
                                                      monitor="val_r@5", mode="max", save_best_only=True),
                      keras.callbacks.CSVLogger(os.path.join(args.model_dir, "log.csv"))]

    model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
              validation_data=val_ds, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
