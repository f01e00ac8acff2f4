#!/usr/bin/env python
"""Fraud / anomaly classifier on card-transaction features.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python train_keras.py --data gs://qr-ml/txn/v7

Input: TFRecord shards written by the feature job (one tf.train.Example per transaction).
"""
import argparse
import json
import os
import time

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

NUM_FEATURES = 48
FEATURES = {
    "features": tf.io.FixedLenFeature([NUM_FEATURES], tf.float32),
    "is_fraud": tf.io.FixedLenFeature([], tf.int64),
}


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/data/txn/v7")
    ap.add_argument("--out", default="./outputs")
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--warmup-epochs", type=int, default=2)
    ap.add_argument("--train-examples", type=int, default=4_000_000)
    ap.add_argument("--val-examples", type=int, default=400_000)
    return ap.parse_args()


def dataset(pattern, batch_size, training):
    ds = tf.data.TFRecordDataset(tf.io.gfile.glob(pattern), num_parallel_reads=8)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.map(lambda r: tf.io.parse_single_example(r, FEATURES), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda ex: (ex["features"], ex["is_fraud"]))
    if training:
        ds = ds.shuffle(50_000).repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def build_model():
    inputs = keras.Input((NUM_FEATURES,))
    x = keras.layers.Normalization()(inputs)
    for units in (256, 128, 64):
        x = keras.layers.Dense(units, activation="gelu")(x)
        x = keras.layers.Dropout(0.1)(x)
    outputs = keras.layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inputs, outputs, name="txn_mlp")


def main():
    args = get_args()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)

    train_ds = dataset(os.path.join(args.data, "train", "part-*.tfrecord"), args.batch_size, True)
    val_ds = dataset(os.path.join(args.data, "val", "part-*.tfrecord"), args.batch_size, False)
    steps_per_epoch = args.train_examples // (args.batch_size * hvd.size())
    val_steps = args.val_examples // (args.batch_size * hvd.size())

    model = build_model()
    model.get_layer(index=1).adapt(train_ds.map(lambda x, y: x).take(20))

    lr = keras.optimizers.schedules.ExponentialDecay(
        initial_learning_rate=args.lr * hvd.size(), decay_steps=steps_per_epoch, decay_rate=0.9)
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.BinaryAccuracy(name="acc")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(),
                                                 warmup_epochs=args.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"),
                                                         monitor="val_loss", save_best_only=True))

    t0 = time.time()
    hist = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
                     validation_data=val_ds, validation_steps=val_steps,
                     callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        with open(os.path.join(args.out, "history.json"), "w") as f:
            json.dump({k: [float(v) for v in vs] for k, vs in hist.history.items()}, f)
        print(f"trained in {time.time() - t0:.0f}s on {hvd.size()} workers")


if __name__ == "__main__":
    main()
