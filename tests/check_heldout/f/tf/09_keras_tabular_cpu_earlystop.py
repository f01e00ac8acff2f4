"""
Churn prediction MLP on CPU nodes (no GPUs on the 'compute' partition).
One Horovod process per socket; each process gets its share of the cores.

    mpirun -np 8 --map-by socket python 09_keras_tabular_cpu_earlystop.py churn.csv
"""
import os
import sys

import numpy as np
import pandas as pd
import tensorflow as tf
import horovod.tensorflow.keras as hvd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

cfg = {
    "csv": sys.argv[1] if len(sys.argv) > 1 else "churn.csv",
    "target": "churned",
    "batch_size": 512,
    "lr": 2e-3,
    "epochs": 200,
    "patience": 10,
    "out": "churn_model",
    "threads_per_rank": 6,
}

hvd.init()

# CPU only: hide any accelerator and size the thread pools per process
tf.config.set_visible_devices([], "GPU")
tf.config.threading.set_intra_op_parallelism_threads(cfg["threads_per_rank"])
tf.config.threading.set_inter_op_parallelism_threads(2)

df = pd.read_csv(cfg["csv"])
y = df.pop(cfg["target"]).values.astype("float32")
X = pd.get_dummies(df, drop_first=True).values.astype("float32")

# identical split on every rank (fixed random_state), then scale with train stats
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.15, random_state=0, stratify=y)
scaler = StandardScaler().fit(X_tr)
X_tr, X_va = scaler.transform(X_tr), scaler.transform(X_va)

pos_weight = float((y_tr == 0).sum()) / max(1.0, float((y_tr == 1).sum()))

# strided partition of the training rows; validation stays whole on every rank
X_tr = X_tr[hvd.rank()::hvd.size()]
y_tr = y_tr[hvd.rank()::hvd.size()]

inputs = tf.keras.Input(shape=(X_tr.shape[1],))
h = tf.keras.layers.Dense(128, activation="relu")(inputs)
h = tf.keras.layers.BatchNormalization()(h)
h = tf.keras.layers.Dropout(0.3)(h)
h = tf.keras.layers.Dense(64, activation="relu")(h)
outputs = tf.keras.layers.Dense(1, activation="sigmoid")(h)
model = tf.keras.Model(inputs, outputs)

optimizer = hvd.DistributedOptimizer(
    tf.keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size()))
model.compile(optimizer=optimizer,
              loss="binary_crossentropy",
              metrics=[tf.keras.metrics.AUC(name="auc"), "accuracy"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
    # average logs first so that every rank takes the same early-stopping decision
    hvd.callbacks.MetricAverageCallback(),
    tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4,
                                         min_lr=1e-5),
    tf.keras.callbacks.EarlyStopping(monitor="val_auc", mode="max",
                                     patience=cfg["patience"], restore_best_weights=True),
]
if hvd.rank() == 0:
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(
        cfg["out"] + "_best.h5", monitor="val_auc", mode="max", save_best_only=True))

model.fit(X_tr, y_tr,
          batch_size=cfg["batch_size"],
          epochs=cfg["epochs"],
          validation_data=(X_va, y_va),
          class_weight={0: 1.0, 1: pos_weight},
          callbacks=callbacks,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    loss, auc, acc = model.evaluate(X_va, y_va, batch_size=4096, verbose=0)
    print(f"validation: loss={loss:.4f} auc={auc:.4f} acc={acc:.4f}")
    np.save(cfg["out"] + "_scaler_mean.npy", scaler.mean_)
