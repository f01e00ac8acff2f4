"""
Multitask toxicity MLP on ECFP fingerprints: k-fold x seed-bagging ensemble.
Custom GradientTape loop, Horovod for data parallelism.

    horovodrun -np 4 python train_tape.py --fp data/tox21_ecfp2048.npz --folds 5 --bags 3
"""
import argparse
import logging
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
logger = logging.getLogger("tox")

parser = argparse.ArgumentParser()
parser.add_argument("--fp", default="data/tox21_ecfp2048.npz")
parser.add_argument("--folds", type=int, default=5)
parser.add_argument("--bags", type=int, default=3)
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--batch", type=int, default=128)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--save-dir", default="ensemble")
FLAGS = parser.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
if hvd.rank() != 0:
    logger.setLevel(logging.WARNING)


def build_mlp(n_in, n_tasks):
    return tf.keras.Sequential([
        tf.keras.Input((n_in,)),
        tf.keras.layers.Dense(1024, activation="relu"),
        tf.keras.layers.Dropout(0.3),
        tf.keras.layers.Dense(512, activation="relu"),
        tf.keras.layers.Dense(n_tasks),
    ])


def masked_bce(y, logits):
    # tox21 labels are NaN where the assay was not run
    mask = tf.cast(~tf.math.is_nan(y), tf.float32)
    y = tf.where(tf.math.is_nan(y), tf.zeros_like(y), y)
    per = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits) * mask
    return tf.reduce_sum(per) / tf.maximum(tf.reduce_sum(mask), 1.0)


def masked_auc(y, p):
    aucs = []
    for t in range(y.shape[1]):
        ok = ~np.isnan(y[:, t])
        yt, pt = y[ok, t], p[ok, t]
        if yt.min() == yt.max():
            continue
        r = np.argsort(np.argsort(pt)) + 1
        npos = yt.sum()
        aucs.append((r[yt == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(yt) - npos)))
    return float(np.mean(aucs))


data = np.load(FLAGS.fp)
X, Y = data["X"].astype(np.float32), data["Y"].astype(np.float32)
fold_id = np.random.RandomState(11).randint(0, FLAGS.folds, size=len(X))
oof = np.zeros_like(Y)

for k in range(FLAGS.folds):
    tr, va = np.where(fold_id != k)[0], np.where(fold_id == k)[0]
    steps = len(tr) // (FLAGS.batch * hvd.size())
    fold_pred = np.zeros((len(va), Y.shape[1]), np.float32)
    for bag in range(FLAGS.bags):
        tf.random.set_seed(1000 * k + bag)
        ds = (tf.data.Dataset.from_tensor_slices((X[tr], Y[tr]))
              .shard(hvd.size(), hvd.rank())
              .shuffle(10000, seed=bag, reshuffle_each_iteration=True)
              .repeat()
              .batch(FLAGS.batch))
        model = build_mlp(X.shape[1], Y.shape[1])
        opt = tf.keras.optimizers.Adam(FLAGS.lr * hvd.size())
        hvd.broadcast_variables(model.variables, root_rank=0)

        @tf.function
        def step_fn(xb, yb):
            with tf.GradientTape() as tape:
                loss = masked_bce(yb, model(xb, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return hvd.allreduce(loss)

        it = iter(ds)
        for epoch in range(FLAGS.epochs):
            for _ in range(steps):
                loss = step_fn(*next(it))
            logger.info("fold %d bag %d epoch %d loss %.4f", k, bag, epoch, float(loss))

        pred = tf.sigmoid(model(X[va], training=False)).numpy()
        fold_pred += pred / FLAGS.bags
        if hvd.rank() == 0:
            os.makedirs(FLAGS.save_dir, exist_ok=True)
            model.save_weights(os.path.join(FLAGS.save_dir, f"mlp_k{k}_b{bag}.weights.h5"))
    oof[va] = fold_pred
    logger.info("fold %d ensemble AUC %.4f", k, masked_auc(Y[va], fold_pred))

logger.info("OOF mean task AUC: %.4f", masked_auc(Y, oof))
