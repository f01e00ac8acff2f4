import numpy as np
import tensorflow as tf


def image_dataset(path, batch_size, rank, world):
    arr = np.load(path, mmap_mode="r")
    n = (len(arr) // world) * world
    idx = np.arange(rank, n, world)            # strided, equal-size partition
    ds = tf.data.Dataset.from_tensor_slices((arr[idx],))
    ds = ds.shuffle(len(idx), reshuffle_each_iteration=True).repeat()
    ds = ds.map(lambda x: (tf.cast(x, tf.float32) / 127.5 - 1.0,), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
