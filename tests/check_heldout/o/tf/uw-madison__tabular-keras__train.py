"""MLP with feature embeddings on the Covertype table, Keras fit + Horovod.

Lab recipe: batch 256 per worker, lr scaled with the number of workers, 3 warm-up epochs.
    horovodrun -np 4 python train.py --csv data/covtype.csv
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd_tf
import horovod.tensorflow.keras as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--csv", default="data/covtype.csv")
parser.add_argument("--val-frac", type=float, default=0.1)
parser.add_argument("--hidden", type=int, nargs="+", default=[512, 256, 128])
parser.add_argument("--dropout", type=float, default=0.15)
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--warmup-epochs", type=int, default=3)
parser.add_argument("--patience", type=int, default=6)
parser.add_argument("--mixed-precision", action="store_true")
parser.add_argument("--out", default="models/covtype_mlp.keras")
parser.add_argument("--seed", type=int, default=13)


class SyncInitialWeights(keras.callbacks.Callback):
    """Sends rank 0's freshly initialised weights to every worker before the first batch."""

    def __init__(self, root_rank=0):
        super().__init__()
        self.root_rank = root_rank

    def on_train_begin(self, logs=None):
        hvd_tf.broadcast_variables(self.model.variables, root_rank=self.root_rank)


class WarmupThenStep(keras.callbacks.Callback):
    def __init__(self, peak, warmup_epochs, steps_per_epoch, drop_at=(20, 30)):
        super().__init__()
        self.peak, self.warm, self.spe, self.drop_at = peak, warmup_epochs, steps_per_epoch, drop_at
        self.epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if self.epoch < self.warm:
            lr = self.peak * (self.epoch * self.spe + batch + 1) / (self.warm * self.spe)
        else:
            lr = self.peak * 0.1 ** sum(self.epoch >= d for d in self.drop_at)
        self.model.optimizer.learning_rate.assign(lr)


def load_table(path, val_frac, seed):
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    x, y = data[:, :-1], data[:, -1].astype(np.int32) - 1
    perm = np.random.RandomState(seed).permutation(len(x))
    n_val = int(len(x) * val_frac)
    va, tr = perm[:n_val], perm[n_val:]
    mu, sd = x[tr].mean(0), x[tr].std(0) + 1e-6
    return (x[tr] - mu) / sd, y[tr], (x[va] - mu) / sd, y[va]


def build_model(n_features, n_classes, hidden, dropout):
    inp = keras.Input((n_features,))
    h = inp
    for w in hidden:
        h = keras.layers.Dense(w, use_bias=False)(h)
        h = keras.layers.BatchNormalization()(h)
        h = keras.layers.Activation("swish")(h)
        h = keras.layers.Dropout(dropout)(h)
    out = keras.layers.Dense(n_classes, activation="softmax", dtype="float32")(h)
    return keras.Model(inp, out)


def main():
    args = parser.parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if args.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")
    keras.utils.set_random_seed(args.seed + hvd.rank())

    x_tr, y_tr, x_va, y_va = load_table(args.csv, args.val_frac, args.seed)
    n_classes = int(y_tr.max()) + 1
    train = tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shard(hvd.size(), hvd.rank()) \
        .shuffle(50000).batch(args.batch_size).prefetch(tf.data.AUTOTUNE)
    val = tf.data.Dataset.from_tensor_slices((x_va, y_va)).shard(hvd.size(), hvd.rank()).batch(1024)
    steps_per_epoch = int(np.ceil(len(x_tr) / hvd.size() / args.batch_size))

    model = build_model(x_tr.shape[1], n_classes, args.hidden, args.dropout)
    peak = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=peak))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    callbacks = [
        SyncInitialWeights(0),
        hvd.callbacks.MetricAverageCallback(),
        WarmupThenStep(peak, args.warmup_epochs, steps_per_epoch),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(args.out, monitor="val_accuracy", save_best_only=True))

    hist = model.fit(train, validation_data=val, epochs=args.epochs, callbacks=callbacks,
                     verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        print("best val accuracy", max(hist.history["val_accuracy"]))


if __name__ == "__main__":
    main()
