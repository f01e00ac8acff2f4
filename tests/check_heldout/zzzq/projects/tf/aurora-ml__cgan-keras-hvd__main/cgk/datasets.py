import numpy as np
import tensorflow as tf
import keras


def load(name):
    if name == "random":
        rs = np.random.RandomState(0)
        return rs.randint(0, 256, (1000, 32, 32, 3)).astype("uint8"), rs.randint(0, 10, (1000,))
    (x, y), _ = keras.datasets.cifar10.load_data()
    return x, y.reshape(-1)


def train_stream(x, y, batch_size, rank):
    """Infinite stream; each worker shuffles with its own seed and fit() runs
    len(x) // (batch_size * size) steps per epoch, so one epoch is one pass over the data in total."""
    x = (x.astype("float32") - 127.5) / 127.5
    ds = tf.data.Dataset.from_tensor_slices((x, y.astype("int32")))
    ds = ds.repeat().shuffle(10000, seed=1000 + rank)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
