import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

FEATURES = 14   # 12 CST coefficients + Mach + alpha
TARGETS = 3


def load_table(path):
    if path == "synthetic":
        rng = np.random.default_rng(3)
        x = rng.normal(size=(4096, FEATURES)).astype("float32")
        y = np.tanh(x[:, :TARGETS] + 0.1 * x[:, -TARGETS:]).astype("float32")
        return x, y
    table = np.loadtxt(path, delimiter=",", skiprows=1, dtype="float32")
    return table[:, :FEATURES], table[:, FEATURES:FEATURES + TARGETS]


def datasets(x, y, batch, val_frac=0.1):
    n_val = int(len(x) * val_frac)
    train = (tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:]))
             .shard(hvd.size(), hvd.rank())
             .shuffle(8192).batch(batch, drop_remainder=True))
    val = tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val])).batch(1024)
    return train, val
