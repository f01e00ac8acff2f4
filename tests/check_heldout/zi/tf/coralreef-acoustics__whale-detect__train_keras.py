"""
Right-whale up-call detector (binary) on 2 s spectrogram patches.

Patches are produced by `prep/make_patches.py` into patches_{train,val}.npz
(X: float16 [N, 64, 128] log-spectrograms, y: uint8 [N]).

Run:  mpirun -np 4 -bind-to none python train_keras.py --epochs 30
"""
import argparse
import os
from datetime import datetime

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/patches")
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--lr", type=float, default=2e-4)
ap.add_argument("--warmup", type=int, default=3)
ap.add_argument("--logdir", default="logs")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load(split):
    z = np.load(os.path.join(args.data, f"patches_{split}.npz"))
    X = z["X"].astype("float32")[..., None]
    X = (X - X.mean(axis=(1, 2), keepdims=True)) / (X.std(axis=(1, 2), keepdims=True) + 1e-5)
    return X, z["y"].astype("float32")


def spec_augment(x, y):
    t0 = tf.random.uniform([], 0, 128 - 16, dtype=tf.int32)
    f0 = tf.random.uniform([], 0, 64 - 8, dtype=tf.int32)
    t_mask = tf.concat([tf.ones([t0]), tf.zeros([16]), tf.ones([128 - t0 - 16])], 0)
    f_mask = tf.concat([tf.ones([f0]), tf.zeros([8]), tf.ones([64 - f0 - 8])], 0)
    return x * f_mask[:, None, None] * t_mask[None, :, None], y


X_train, y_train = load("train")
X_val, y_val = load("val")
pos_weight = float((y_train == 0).sum() / max((y_train == 1).sum(), 1))

train_ds = (tf.data.Dataset.from_tensor_slices((X_train, y_train))
            .shuffle(len(X_train))
            .map(spec_augment, num_parallel_calls=tf.data.AUTOTUNE)
            .batch(args.batch_size)
            .repeat()
            .prefetch(tf.data.AUTOTUNE))
val_ds = tf.data.Dataset.from_tensor_slices((X_val, y_val)).batch(256)


def make_model():
    m = keras.Sequential([keras.Input((64, 128, 1))])
    for f in (32, 64, 128):
        m.add(layers.Conv2D(f, 3, padding="same", use_bias=False))
        m.add(layers.BatchNormalization())
        m.add(layers.ReLU())
        m.add(layers.MaxPooling2D())
    m.add(layers.GlobalAveragePooling2D())
    m.add(layers.Dropout(0.3))
    m.add(layers.Dense(1))
    return m


model = make_model()
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss=keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=[keras.metrics.AUC(from_logits=True, name="auc"),
                       keras.metrics.BinaryAccuracy(threshold=0.0, name="acc")])

run_dir = os.path.join(args.logdir, datetime.now().strftime("%Y%m%d-%H%M%S"))
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup, verbose=1),
    keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=6, restore_best_weights=True),
]
if hvd.rank() == 0:
    os.makedirs(run_dir, exist_ok=True)
    callbacks.append(keras.callbacks.TensorBoard(run_dir))
callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"),
                                                 monitor="val_auc", mode="max", save_best_only=True))

model.fit(train_ds,
          steps_per_epoch=len(X_train) // args.batch_size,
          epochs=args.epochs,
          validation_data=val_ds,
          class_weight={0: 1.0, 1: pos_weight},
          callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)
