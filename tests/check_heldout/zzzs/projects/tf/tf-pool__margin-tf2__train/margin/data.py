import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_npz(path):
    d = np.load(path)
    return (d["x_train"].astype(np.float32), d["y_train"].astype(np.int64)), \
           (d["x_test"].astype(np.float32), d["y_test"].astype(np.int64))


def make_train_ds(x, y, batch_size, seed=0):
    n = len(x) // (batch_size * hvd.size()) * batch_size * hvd.size()
    ds = tf.data.Dataset.from_tensor_slices((x[:n], y[:n]))
    ds = ds.shuffle(n, seed=seed).shard(hvd.size(), hvd.rank())
    return ds.batch(batch_size, drop_remainder=True).prefetch(2)


def make_eval_ds(x, y, batch_size):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    return ds.batch(batch_size)
