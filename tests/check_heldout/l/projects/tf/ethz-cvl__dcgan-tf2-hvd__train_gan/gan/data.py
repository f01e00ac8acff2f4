import glob
import os

import tensorflow as tf
import horovod.tensorflow as hvd


def _load(path):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    img = tf.image.resize(img, (64, 64), antialias=True)
    return tf.cast(img, tf.float32) / 127.5 - 1.0


def celeba_dataset(root, batch_size):
    files = sorted(glob.glob(os.path.join(root, "*.jpg")))
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.shuffle(len(files) // hvd.size() + 1, reshuffle_each_iteration=True)
    ds = ds.map(_load, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x: tf.image.random_flip_left_right(x))
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE), len(files)
