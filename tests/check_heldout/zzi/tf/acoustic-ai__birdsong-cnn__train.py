# -*- coding: utf-8 -*-
"""
Birdsong species classifier on log-mel spectrogram patches.

Data layout (produced by scripts/extract_mels.py):
    <data>/train/<species>/<clip>.npy   (n_mels, frames) float32
    <data>/valid/<species>/<clip>.npy

Run:  horovodrun -np 4 python train.py --data /data/birdsong --epochs 25
"""
import argparse
import glob
import os
import random

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

N_MELS, FRAMES = 64, 256


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--batch", type=int, default=48)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", default="checkpoints")
    ap.add_argument("--mixup", action="store_true")
    return ap.parse_args()


def index_split(root, split):
    species = sorted(os.listdir(os.path.join(root, "train")))
    files, labels = [], []
    for idx, name in enumerate(species):
        clips = sorted(glob.glob(os.path.join(root, split, name, "*.npy")))
        files += clips
        labels += [idx] * len(clips)
    return files, labels, species


def load_clip(path):
    mel = np.load(path.decode())
    if mel.shape[1] < FRAMES:
        mel = np.pad(mel, ((0, 0), (0, FRAMES - mel.shape[1])))
    start = random.randint(0, mel.shape[1] - FRAMES)
    mel = mel[:, start:start + FRAMES]
    mel = (mel - mel.mean()) / (mel.std() + 1e-6)
    return mel[..., None].astype("float32")


def pipeline(files, labels, batch, train):
    ds = tf.data.Dataset.from_tensor_slices((files, labels))
    ds = ds.shard(hvd.size(), hvd.rank())
    if train:
        ds = ds.shuffle(10000, seed=7).repeat()

    def _load(path, label):
        mel = tf.numpy_function(load_clip, [path], tf.float32)
        mel.set_shape((N_MELS, FRAMES, 1))
        return mel, label

    ds = ds.map(_load, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def make_model(n_classes):
    m = keras.Sequential([
        keras.Input((N_MELS, FRAMES, 1)),
        layers.Conv2D(32, (3, 3), padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.MaxPooling2D((2, 2)),
        layers.Conv2D(64, (3, 3), padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.MaxPooling2D((2, 2)),
        layers.Conv2D(128, (3, 3), padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.GlobalAveragePooling2D(),
        layers.Dropout(0.4),
        layers.Dense(n_classes, activation="softmax"),
    ])
    return m


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    tr_files, tr_labels, species = index_split(args.data, "train")
    va_files, va_labels, _ = index_split(args.data, "valid")
    steps_per_epoch = len(tr_files) // (args.batch * hvd.size())
    validation_steps = len(va_files) // (args.batch * hvd.size())
    if hvd.rank() == 0:
        print(f"{len(species)} species | {len(tr_files)} train clips | {len(va_files)} valid clips")

    model = make_model(len(species))
    opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])

    callbacks = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
        keras.callbacks.ReduceLROnPlateau(patience=3, factor=0.5, verbose=hvd.rank() == 0),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(
            os.path.join(args.out, "birdsong-{epoch:02d}-{val_accuracy:.3f}.keras")))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.out, "log.csv")))

    model.fit(pipeline(tr_files, tr_labels, args.batch, True),
              steps_per_epoch=steps_per_epoch,
              validation_data=pipeline(va_files, va_labels, args.batch, False),
              validation_steps=validation_steps,
              epochs=args.epochs,
              callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
