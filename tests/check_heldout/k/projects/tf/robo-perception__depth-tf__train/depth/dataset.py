import glob
import os

import numpy as np
import tensorflow as tf


def triplet_files(data_dir):
    return sorted(glob.glob(os.path.join(data_dir, "*", "*.npz")))


def load_intrinsics(data_dir):
    return np.loadtxt(os.path.join(data_dir, "intrinsics.txt"), dtype=np.float32).reshape(3, 3)


def _read(path):
    blob = np.load(path.numpy().decode())
    return blob["prev"], blob["cur"], blob["next"]


def make_dataset(files, height, width, batch_size, shuffle_seed):
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shuffle(len(files), seed=shuffle_seed, reshuffle_each_iteration=True)

    def load(path):
        prev, cur, nxt = tf.py_function(_read, [path], [tf.uint8, tf.uint8, tf.uint8])
        frames = [tf.image.resize(tf.cast(f, tf.float32) / 255.0, (height, width)) for f in (prev, cur, nxt)]
        for f in frames:
            f.set_shape((height, width, 3))
        return tuple(frames)

    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
