"""Card-fraud scorer: distributed Keras training.

Run from the repo root on the training pool:
    horovodrun -np 4 -H trn-gpu-07:4 python training/train_hvd.py --data /mnt/feature-store/fraud_2024q4.npz

Features are already standardised by the feature-store export job.
"""
import argparse
import os

import horovod.tensorflow.keras as hvd
import numpy as np
import tensorflow as tf

FEATURE_DIM = 64


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/mnt/feature-store/fraud_latest.npz")
    ap.add_argument("--model-dir", default="/mnt/models/fraud/candidate")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=99)
    return ap.parse_args()


def datasets(path, batch_size):
    blob = np.load(path)
    x, y = blob["x"].astype("float32"), blob["y"].astype("float32")
    n_val = len(x) // 10
    val = tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val]))
    train = tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:]))
    train = train.shard(hvd.size(), hvd.rank()).shuffle(50000).repeat().batch(batch_size, drop_remainder=True)
    val = val.shard(hvd.size(), hvd.rank()).batch(batch_size).repeat()
    pos_rate = float(y[n_val:].mean())
    return train, val, len(x) - n_val, n_val, pos_rate


def build_model(pos_rate):
    bias = tf.keras.initializers.Constant(np.log(pos_rate / (1 - pos_rate)))
    return tf.keras.Sequential([
        tf.keras.Input((FEATURE_DIM,)),
        tf.keras.layers.Dense(256, activation="relu"),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(1, activation="sigmoid", bias_initializer=bias),
    ])


def main():
    args = get_args()
    hvd.init()
    # different seed per worker so the shuffles and dropout masks are not identical
    tf.keras.utils.set_random_seed(args.seed + hvd.rank())

    train, val, n_train, n_val, pos_rate = datasets(args.data, args.batch_size)
    steps = n_train // (args.batch_size * hvd.size())
    val_steps = max(1, n_val // (args.batch_size * hvd.size()))

    model = build_model(pos_rate)
    scaled_lr = args.lr * hvd.size()
    # Horovod's DistributedOptimizer wants the TF 2.11+ "legacy" optimizer classes
    opt = tf.keras.optimizers.legacy.Adam(learning_rate=scaled_lr)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.BinaryAccuracy(name="acc")])

    callbacks = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps),
        tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.model_dir, exist_ok=True)
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(args.model_dir, "best.keras"),
                                                            monitor="val_loss", save_best_only=True))

    model.fit(train, steps_per_epoch=steps, epochs=args.epochs, validation_data=val, validation_steps=val_steps,
              class_weight={0: 1.0, 1: 10.0}, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save(os.path.join(args.model_dir, "final.keras"))


if __name__ == "__main__":
    main()
