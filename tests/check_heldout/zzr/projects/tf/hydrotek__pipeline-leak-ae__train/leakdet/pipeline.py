import glob
import os

import numpy as np
import tensorflow as tf

from . import settings


def sensor_files(split):
    return sorted(glob.glob(os.path.join(settings.DATA_ROOT, split, "sensor_*.npy")))


def n_windows(files):
    return sum(np.load(f, mmap_mode="r").shape[0] for f in files)


def _gen(files):
    def gen():
        for f in files:
            for w in np.load(f, mmap_mode="r"):
                w = w.astype("float32")[:, None]
                yield w, w
    return gen


def worker_dataset(split, rank, size, training=True):
    mine = sensor_files(split)[rank::size]
    spec = tf.TensorSpec((settings.WINDOW, 1), tf.float32)
    ds = tf.data.Dataset.from_generator(_gen(mine), output_signature=(spec, spec))
    if training:
        ds = ds.shuffle(2048)
    return ds.repeat().batch(settings.BATCH_PER_WORKER).prefetch(tf.data.AUTOTUNE)
