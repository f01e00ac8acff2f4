import numpy as np
import tensorflow as tf

import horovod.tensorflow as hvd


def load_rank_split(S):
    """Shuffle once with a fixed seed (same order on every rank), hold out 20 %, then give
    every rank an equal, disjoint block of the training rows."""
    raw = np.loadtxt(S.csv, delimiter=",", skiprows=1, dtype=np.float32)
    rng = np.random.default_rng(2024)
    raw = raw[rng.permutation(len(raw))]
    x, y = raw[:, :-1], raw[:, -1:]
    mu, sd = x.mean(0), x.std(0) + 1e-6
    x = (x - mu) / sd

    n_val = len(x) // 5
    x_val, y_val, x_tr, y_tr = x[:n_val], y[:n_val], x[n_val:], y[n_val:]
    per_rank = len(x_tr) // hvd.size()
    sl = slice(hvd.rank() * per_rank, (hvd.rank() + 1) * per_rank)
    x_tr, y_tr = x_tr[sl], y_tr[sl]

    steps = per_rank // S.batch_size
    train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
                .shuffle(per_rank, reshuffle_each_iteration=True)
                .batch(S.batch_size, drop_remainder=True))
    # validation: every rank gets the full held-out set
    val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(1024)
    return train_ds, val_ds, x.shape[1], steps
