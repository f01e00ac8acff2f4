"""Patches of clean grayscale images (uint8 npy, N x P x P x 1); noise is added on the fly."""
import numpy as np
import tensorflow as tf


def load_patches(path):
    x = np.load(path)
    if x.ndim == 3:
        x = x[..., None]
    return x


def noisy_pairs(patches, batch_size, sigma_range, shard=None, training=True, seed=0):
    ds = tf.data.Dataset.from_tensor_slices(patches)
    if shard is not None:
        ds = ds.shard(*shard)
    if training:
        ds = ds.shuffle(min(len(patches), 20000), seed=seed, reshuffle_each_iteration=True).repeat()

    lo, hi = sigma_range

    def add_noise(clean):
        clean = tf.cast(clean, tf.float32) / 255.0
        if training:
            clean = tf.image.random_flip_left_right(clean)
            clean = tf.image.rot90(clean, k=tf.random.uniform([], 0, 4, dtype=tf.int32))
        sigma = tf.random.uniform([], lo, hi) / 255.0
        return clean + tf.random.normal(tf.shape(clean)) * sigma, clean

    return ds.map(add_noise, num_parallel_calls=tf.data.AUTOTUNE).batch(batch_size, drop_remainder=training) \
             .prefetch(tf.data.AUTOTUNE)
