"""Speech emotion recognition (4 classes) from 40-dim log-mel frames, elastic Horovod + Keras 3.

Spot-instance pool, workers come and go:
    horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script discover.sh \
        python train_elastic.py --features /data/ser/iemocap_logmel.npz
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--features", default="/data/ser/iemocap_logmel.npz")
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--base-lr", type=float, default=1e-3)
parser.add_argument("--batches-per-commit", type=int, default=20)
parser.add_argument("--out", default="runs/ser")
args = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

data = np.load(args.features)
x_all, y_all = data["x"].astype("float32"), data["y"].astype("int32")     # (n, frames, 40), (n,)
folds = data["session"]
train_mask = folds != 5                                                   # session 5 held out
x_train, y_train = x_all[train_mask], y_all[train_mask]
x_test, y_test = x_all[~train_mask], y_all[~train_mask]


def build_model(frames, mels):
    inp = keras.Input((frames, mels))
    h = keras.layers.Conv1D(128, 5, padding="same", activation="relu")(inp)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.Bidirectional(keras.layers.LSTM(96, return_sequences=True))(h)
    att = keras.layers.Dense(1)(h)
    att = keras.layers.Softmax(axis=1)(att)
    h = keras.layers.Dot(axes=1)([att, h])
    h = keras.layers.Flatten()(h)
    return keras.Model(inp, keras.layers.Dense(4, activation="softmax")(h))


def shard(x, y):
    # recomputed inside train(): after a reset the number of workers and this worker's rank can change
    n = len(y) // hvd.size()
    lo = hvd.rank() * n
    return x[lo:lo + n], y[lo:lo + n]


model = build_model(x_train.shape[1], x_train.shape[2])
optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=args.base_lr * hvd.size()))
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

state = hvd.elastic.KerasState(model, batch=0, epoch=0)


def on_state_reset():
    # keep the linear scaling rule when the world size changes
    state.model.optimizer.learning_rate = args.base_lr * hvd.size()


state.register_reset_callbacks([on_state_reset])


@hvd.elastic.run
def train(state):
    xs, ys = shard(x_train, y_train)
    xv, yv = shard(x_test, y_test)
    order = np.random.default_rng(state.epoch).permutation(len(ys))
    callbacks = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.elastic.UpdateEpochStateCallback(state),
        hvd.elastic.UpdateBatchStateCallback(state),
        hvd.elastic.CommitStateCallback(state, batches_per_commit=args.batches_per_commit),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "ser.weights.h5"),
                                                         save_weights_only=True))
    state.model.fit(xs[order], ys[order], batch_size=args.batch_size, epochs=args.epochs,
                    initial_epoch=state.epoch, validation_data=(xv, yv), shuffle=True,
                    callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


train(state)
if hvd.rank() == 0:
    # the whole held-out session, on one worker
    print("final test (session 5):", model.evaluate(x_test, y_test, batch_size=64, verbose=0))
