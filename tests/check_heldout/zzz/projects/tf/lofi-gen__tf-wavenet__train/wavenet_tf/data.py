import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def mu_law(x, quant=256):
    mu = float(quant - 1)
    y = tf.sign(x) * tf.math.log1p(mu * tf.abs(x)) / tf.math.log1p(mu)
    return tf.cast((y + 1.0) / 2.0 * mu + 0.5, tf.int32)


def _load(path):
    return np.load(path.decode()).astype(np.float32)


def segments(cfg, split="train"):
    files = sorted(glob.glob(os.path.join(cfg.data_dir, split, "*.npy")))
    ds = tf.data.Dataset.from_tensor_slices(files).shard(hvd.size(), hvd.rank())
    if split == "train":
        ds = ds.shuffle(len(files)).repeat()

    def crop(path):
        wav = tf.numpy_function(_load, [path], tf.float32)
        wav = tf.concat([wav, tf.zeros([cfg.segment + 1])], 0)
        start = tf.random.uniform([], 0, tf.shape(wav)[0] - cfg.segment - 1, dtype=tf.int32)
        q = mu_law(wav[start:start + cfg.segment + 1], cfg.quant)
        q.set_shape([cfg.segment + 1])
        return q[:-1], q[1:]

    ds = ds.map(crop, num_parallel_calls=tf.data.AUTOTUNE)
    if split != "train":
        ds = ds.repeat()
    return ds.batch(cfg.batch_per_replica, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
