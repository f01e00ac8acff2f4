#!/usr/bin/env python
# coding: utf-8
# Sentiment classifier on pre-tokenised reviews (ids from our sentencepiece model).
# Notebook -> script; cells kept as functions so the notebook can still import them.
#   horovodrun -np 4 python sentiment_hvd.py

import os
import sys

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

DATA = os.environ.get("REVIEWS_NPZ", "data/reviews_sp16k_len256.npz")
CKPT_DIR = os.environ.get("CKPT_DIR", "checkpoints")
VOCAB = 16000
BATCH = 64
LR = 2e-3
EPOCHS = int(os.environ.get("EPOCHS", 8))


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def load_data():
    z = np.load(DATA)
    x_tr, y_tr = z["x_train"], z["y_train"]
    x_te, y_te = z["x_test"], z["y_test"]
    n = len(x_tr) // hvd.size() * hvd.size()
    # every worker keeps every size-th review: disjoint, equal-sized slices
    return (x_tr[:n][hvd.rank()::hvd.size()], y_tr[:n][hvd.rank()::hvd.size()]), (x_te, y_te)


def build_model():
    m = keras.Sequential([
        keras.Input(shape=(None,), dtype="int32"),
        keras.layers.Embedding(VOCAB, 128, mask_zero=True),
        keras.layers.Bidirectional(keras.layers.GRU(64)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(1, activation="sigmoid"),
    ])
    scaled_lr = LR * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    m.compile(optimizer=opt, loss="binary_crossentropy", metrics=["accuracy"])
    return m, scaled_lr


class SaveOnRoot(keras.callbacks.Callback):
    """our old habit: save weights each epoch, but only from the first worker"""

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() != 0:
            return
        os.makedirs(CKPT_DIR, exist_ok=True)
        self.model.save_weights(os.path.join(CKPT_DIR, f"sent_e{epoch:02d}.weights.h5"))


def run():
    setup()
    (x_tr, y_tr), (x_te, y_te) = load_data()
    n_val = len(x_tr) // 10                       # last 10% of my slice for validation
    x_fit, y_fit, x_val, y_val = x_tr[:-n_val], y_tr[:-n_val], x_tr[-n_val:], y_tr[-n_val:]
    steps = int(np.ceil(len(x_fit) / BATCH))
    model, scaled_lr = build_model()
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=2, steps_per_epoch=steps,
                                                 verbose=0),
        SaveOnRoot(),
    ]
    model.fit(x_fit, y_fit, batch_size=BATCH, epochs=EPOCHS, validation_data=(x_val, y_val), shuffle=True,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    # the test set is not sharded: every worker scores all of it, rank 0 reports
    loss, acc = model.evaluate(x_te, y_te, batch_size=256, verbose=0)
    if hvd.rank() == 0:
        print(f"test loss {loss:.4f}  test acc {acc:.4f}")
        sys.stdout.flush()


if __name__ == "__main__":
    run()
