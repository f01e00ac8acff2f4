import numpy as np
import tensorflow as tf


def load_images(path):
    """A .npz with 'images' uint8 (N, 32, 32, 3)."""
    with np.load(path) as d:
        return d["images"]


def make_dataset(images, batch_size, rank, world, seed=0):
    ds = tf.data.Dataset.from_tensor_slices(images)
    ds = ds.shard(world, rank)
    ds = ds.shuffle(20000, seed=seed, reshuffle_each_iteration=True)
    ds = ds.map(lambda x: tf.cast(x, tf.float32) / 127.5 - 1.0, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
