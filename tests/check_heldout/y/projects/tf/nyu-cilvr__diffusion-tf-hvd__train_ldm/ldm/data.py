import numpy as np
import tensorflow as tf


def image_dataset(path, batch, shuffle_buffer=50_000, seed=1234):
    """Endless stream of [-1, 1] image batches from an (N, H, W, 3) uint8 array."""
    images = np.load(path)
    ds = tf.data.Dataset.from_tensor_slices(images)
    # fixed seed so that runs are reproducible
    ds = ds.shuffle(min(shuffle_buffer, len(images)), seed=seed, reshuffle_each_iteration=True).repeat()

    def prep(x):
        x = tf.cast(x, tf.float32) / 127.5 - 1.0
        return tf.image.random_flip_left_right(x)

    return ds.map(prep, num_parallel_calls=tf.data.AUTOTUNE).batch(batch, drop_remainder=True).prefetch(4)
