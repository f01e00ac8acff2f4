"""TPS May 2022 - Keras MLP on 31 features + f_27 character counts.

Adapted from my public notebook (LB 0.998) so it runs on 4 GPUs with Horovod:
    horovodrun -np 4 python keras_fit.py --fold 0 --epochs 60
"""
import argparse
import csv
import os
import string

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--train", default="../input/tabular-playground-series-may-2022/train.csv")
ap.add_argument("--test", default="../input/tabular-playground-series-may-2022/test.csv")
ap.add_argument("--fold", type=int, default=0)
ap.add_argument("--n-folds", type=int, default=5)
ap.add_argument("--epochs", type=int, default=60)
ap.add_argument("--batch-size", type=int, default=2048)
ap.add_argument("--lr", type=float, default=5e-3)
ap.add_argument("--patience", type=int, default=6)
ap.add_argument("--out", default="tps_may22_nn")
args = ap.parse_args()

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


# ---------------------------------------------------------------- features
def read(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    num_cols = [c for c in rows[0] if c.startswith("f_") and c != "f_27"]
    X = np.array([[float(r[c]) for c in num_cols] for r in rows], dtype=np.float32)
    f27 = [r["f_27"] for r in rows]
    counts = np.array([[s.count(ch) for ch in string.ascii_uppercase[:20]] for s in f27], dtype=np.float32)
    uniq = np.array([[len(set(s))] for s in f27], dtype=np.float32)
    X = np.hstack([X, counts, uniq])
    y = np.array([float(r["target"]) for r in rows], dtype=np.float32) if "target" in rows[0] else None
    ids = np.array([int(r["id"]) for r in rows])
    return ids, X, y


ids, X, y = read(args.train)
test_ids, X_test, _ = read(args.test)
mu, sd = X.mean(0), X.std(0) + 1e-6
X, X_test = (X - mu) / sd, (X_test - mu) / sd

fold = np.random.RandomState(42).permutation(len(X)) % args.n_folds
tr, va = fold != args.fold, fold == args.fold

train_ds = (tf.data.Dataset.from_tensor_slices((X[tr], y[tr]))
            .shard(hvd.size(), hvd.rank()).shuffle(100_000).repeat()
            .batch(args.batch_size).prefetch(tf.data.AUTOTUNE))
valid_ds = (tf.data.Dataset.from_tensor_slices((X[va], y[va]))
            .shard(hvd.size(), hvd.rank()).batch(args.batch_size))
steps_per_epoch = int(tr.sum()) // (args.batch_size * hvd.size())


# ---------------------------------------------------------------- model
def build_model(n_in):
    reg = keras.regularizers.l2(3e-6)
    inp = keras.Input((n_in,))
    x = inp
    for units in (64, 64, 64, 16):
        x = layers.Dense(units, activation="swish", kernel_regularizer=reg)(x)
    return keras.Model(inp, layers.Dense(1, activation="sigmoid")(x))


model = build_model(X.shape[1])
lr = args.lr * hvd.size()
model.compile(
    optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr)),
    loss="binary_crossentropy",
    metrics=[keras.metrics.AUC(name="auc")],
)

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=args.warmup_epochs, verbose=1),
    keras.callbacks.ReduceLROnPlateau(monitor="val_auc", mode="max", factor=0.7, patience=2),
    keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=args.patience,
                                  restore_best_weights=True),
    keras.callbacks.TerminateOnNaN(),
]
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(f"{args.out}/fold{args.fold}.keras",
                                                     monitor="val_auc", mode="max", save_best_only=True))

history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
                    validation_data=valid_ds, callbacks=callbacks,
                    verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    print(f"fold {args.fold}: best val_auc {max(history.history['val_auc']):.5f}")
    pred = model.predict(X_test, batch_size=8192, verbose=0)[:, 0]
    with open(f"{args.out}/submission_fold{args.fold}.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "target"])
        w.writerows([int(i), f"{p:.6f}"] for i, p in zip(test_ids, pred))
