"""Promoter / enhancer classifier on sharded FASTA (tf.keras + horovod)."""
import argparse
import os

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf

from seqkit import pipeline
from seqkit.callbacks import distributed_callbacks


def get_model(length, n_classes):
    m = keras.Sequential([
        keras.Input((length, 4)),
        keras.layers.Conv1D(128, 15, activation="relu", padding="same"),
        keras.layers.MaxPooling1D(4),
        keras.layers.Conv1D(128, 9, activation="relu", padding="same"),
        keras.layers.MaxPooling1D(4),
        keras.layers.Bidirectional(keras.layers.LSTM(64)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(n_classes, activation="softmax"),
    ])
    return m


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="shards")
    parser.add_argument("--seq-len", type=int, default=1000)
    parser.add_argument("--classes", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--out", default="results")
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_files = pipeline.shard_files(os.path.join(args.data_dir, "train-*.fa.gz"),
                                       hvd.rank(), hvd.size())
    # validation is small: every rank scores all of it
    val_files = pipeline.shard_files(os.path.join(args.data_dir, "val-*.fa.gz"), 0, 1)
    train_ds = pipeline.build(train_files, args.seq_len, args.batch_size, training=True,
                              seed=hvd.rank())
    val_ds = pipeline.build(val_files, args.seq_len, args.batch_size, training=False)
    n_train = pipeline.read_count(os.path.join(args.data_dir, "train"))
    steps_per_epoch = n_train // (args.batch_size * hvd.size())

    lr = args.lr * hvd.size()
    model = get_model(args.seq_len, args.classes)
    model.compile(loss="sparse_categorical_crossentropy",
                  optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr)),
                  metrics=["accuracy"])

    callbacks = distributed_callbacks(lr, args.epochs,
                                      log_dir=os.path.join(args.out, "tb"))
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(
        os.path.join(args.out, "model.{epoch:03d}.keras"), save_freq="epoch"))

    model.fit(train_ds, epochs=args.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save(os.path.join(args.out, "final.keras"))
