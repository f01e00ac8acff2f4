import numpy as np
import tensorflow as tf


def load_cifar10():
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()
    x_train = x_train.astype("float32") / 255.0
    x_test = x_test.astype("float32") / 255.0
    return (x_train, y_train.reshape(-1).astype("int64")), (x_test, y_test.reshape(-1).astype("int64"))


def worker_dataset(x, y, per_worker_batch, num_workers, worker_index, training):
    """Contiguous, equal-sized block of the arrays for this worker."""
    n = len(x) // num_workers
    lo = worker_index * n
    ds = tf.data.Dataset.from_tensor_slices((x[lo:lo + n], y[lo:lo + n]))
    if training:
        ds = ds.shuffle(n, seed=worker_index)
        ds = ds.map(lambda a, b: (tf.image.random_flip_left_right(a), b),
                    num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(per_worker_batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
