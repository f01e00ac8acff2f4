# Disruption predictor for C-Mod / DIII-D shots: 1-D CNN + LSTM over 0D diagnostic signal windows.
# Data: disruption_windows.npz from the MDSplus extraction (X: [n, T, n_signals], y: 1 = disrupts within 50 ms)
# Engaging cluster: mpirun -np 8 python train.py --data /pool001/psfc/disrupt/disruption_windows.npz
import argparse
import os

import numpy as np
import keras
import tensorflow as tf
import horovod.keras as hvd

SIGNALS = ["ip", "ip_error", "li", "q95", "betap", "n_e_greenwald", "locked_mode", "radiated_frac",
           "v_loop", "z_error"]

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="disruption_windows.npz")
parser.add_argument("--epochs", type=int, default=25)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--logdir", default="logs")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ---- data: shots were already split train/test by shot number in the extraction step
d = np.load(args.data)
X_train, y_train = d["X_train"].astype("float32"), d["y_train"].astype("float32")
X_test, y_test = d["X_test"].astype("float32"), d["y_test"].astype("float32")
mu = X_train.mean(axis=(0, 1), keepdims=True)
sd = X_train.std(axis=(0, 1), keepdims=True) + 1e-6
X_train, X_test = (X_train - mu) / sd, (X_test - mu) / sd
pos_weight = float((y_train == 0).sum()) / max(float((y_train == 1).sum()), 1.0)
if hvd.rank() == 0:
    print(f"train {X_train.shape} test {X_test.shape} disruptive fraction {y_train.mean():.3f}")

# ---- model
inp = keras.Input(shape=X_train.shape[1:])
x = keras.layers.Conv1D(64, 5, padding="causal", activation="relu")(inp)
x = keras.layers.Conv1D(64, 5, padding="causal", activation="relu")(x)
x = keras.layers.LSTM(96, return_sequences=False)(x)
x = keras.layers.Dropout(0.3)(x)
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inp, out)

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="binary_crossentropy",
              metrics=[keras.metrics.AUC(name="auc"), keras.metrics.BinaryAccuracy(name="acc")])

os.makedirs("checkpoints", exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=3, verbose=0),
    keras.callbacks.ModelCheckpoint("checkpoints/disrupt-{epoch:02d}.keras", monitor="val_auc", mode="max"),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.TensorBoard(log_dir=args.logdir))

model.fit(X_train, y_train,
          batch_size=args.batch_size,
          epochs=args.epochs,
          validation_data=(X_test, y_test),
          class_weight={0: 1.0, 1: pos_weight},
          callbacks=callbacks,
          shuffle=True,
          verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    loss, auc, acc = model.evaluate(X_test, y_test, batch_size=512, verbose=0)
    print(f"test: loss={loss:.4f} auc={auc:.4f} acc={acc:.4f}")
    model.save("disruption_predictor.keras")
