import numpy as np
import tensorflow as tf

from gintape.registry import configurable


@configurable
def make_datasets(rank, size, batch_size, n_train=4096, n_eval=512, seed=3):
    rng = np.random.RandomState(seed)  # same arrays on every worker
    x = rng.rand(n_train + n_eval, 28, 28, 1).astype("float32")
    y = rng.randint(0, 10, n_train + n_eval).astype("int64")
    x_tr, y_tr, x_ev, y_ev = x[:n_train], y[:n_train], x[n_train:], y[n_train:]
    # strided partition: worker r owns examples r, r+size, r+2*size, ...
    train = (tf.data.Dataset.from_tensor_slices((x_tr[rank::size], y_tr[rank::size]))
             .shuffle(2048, seed=seed + rank).batch(batch_size, drop_remainder=True))
    evalset = tf.data.Dataset.from_tensor_slices((x_ev[rank::size], y_ev[rank::size])).batch(256)
    return train, evalset
