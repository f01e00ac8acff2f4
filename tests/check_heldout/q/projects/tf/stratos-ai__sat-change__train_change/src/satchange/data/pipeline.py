"""tf.data input pipelines for before/after image pairs."""
import horovod.tensorflow as hvd
import numpy as np
import tensorflow as tf

from .augment import paired_flip_rotate, radiometric_jitter


def _normalise(before, after, label):
    return tf.cast(before, tf.float32) / 255.0, tf.cast(after, tf.float32) / 255.0, label


def build_pairs_dataset(npz_path, batch_size, training=True, num_shards=hvd.size(), shard_index=hvd.rank()):
    blob = np.load(npz_path)
    n = len(blob["label"])
    ds = tf.data.Dataset.from_tensor_slices((blob["before"], blob["after"], blob["label"].astype("float32")))
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(4096, reshuffle_each_iteration=True)
    ds = ds.map(_normalise, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(paired_flip_rotate, num_parallel_calls=tf.data.AUTOTUNE)
        ds = ds.map(radiometric_jitter, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(batch_size, drop_remainder=training)
    if training:
        ds = ds.take(n // (num_shards * batch_size))  # same number of steps on every worker
    return ds.prefetch(tf.data.AUTOTUNE), n
