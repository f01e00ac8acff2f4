#!/usr/bin/env python
# Higgs boson (UCI, 11M rows) signal/background MLP -- tf.data reading the CSV
# directly, keras fit, horovod. Usage:
#   horovodrun -np 4 python 05_csv_tabular_fit.py --train data/higgs_train.csv --val data/higgs_val.csv
import argparse
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

N_FEATURES = 28

parser = argparse.ArgumentParser(description="HIGGS MLP")
parser.add_argument("--train", default="data/higgs_train.csv")
parser.add_argument("--val", default="data/higgs_val.csv")
parser.add_argument("--batch-size", type=int, default=1024)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--logdir", default="logs/higgs")
parser.add_argument("--ckpt", default="checkpoints/higgs-{epoch:02d}.h5")
args = parser.parse_args()

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

RECORD_DEFAULTS = [[0.0]] * (N_FEATURES + 1)


def parse_line(line):
    cols = tf.io.decode_csv(line, record_defaults=RECORD_DEFAULTS)
    label = cols[0]
    feats = tf.stack(cols[1:])
    return feats, label


def train_pipeline(path):
    ds = tf.data.TextLineDataset(path).skip(1)   # header
    # each worker reads its own slice of the rows
    ds.shard(hvd.size(), hvd.rank())
    ds = ds.map(parse_line, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(100000).batch(args.batch_size).prefetch(tf.data.AUTOTUNE)
    return ds


def val_pipeline(path):
    ds = tf.data.TextLineDataset(path).skip(1)
    ds = ds.map(parse_line, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(8192).cache().prefetch(tf.data.AUTOTUNE)


train_ds = train_pipeline(args.train)
val_ds = val_pipeline(args.val)

# feature normalisation learned from a sample of the training rows
norm = tf.keras.layers.Normalization(axis=-1)
norm.adapt(train_ds.map(lambda x, y: x).take(200))


def build_model():
    inp = tf.keras.Input(shape=(N_FEATURES,))
    x = norm(inp)
    for units in (300, 300, 300, 300):
        x = tf.keras.layers.Dense(units, activation="relu")(x)
        x = tf.keras.layers.Dropout(0.1)(x)
    out = tf.keras.layers.Dense(1, activation="sigmoid")(x)
    return tf.keras.Model(inp, out)


model = build_model()
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt,
              loss="binary_crossentropy",
              metrics=[tf.keras.metrics.AUC(name="auc"), "accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=2, verbose=0),
    tf.keras.callbacks.ModelCheckpoint(args.ckpt, monitor="val_auc", mode="max"),
]
if hvd.rank() == 0:
    callbacks.append(tf.keras.callbacks.TensorBoard(log_dir=args.logdir))

os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)

model.fit(train_ds,
          validation_data=val_ds,
          epochs=args.epochs,
          callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save("higgs_mlp_final.h5")
