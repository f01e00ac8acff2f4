import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def _load_arrays(data_dir):
    files = sorted(glob.glob(os.path.join(data_dir, "*.npy")))
    return np.concatenate([np.load(f) for f in files], axis=0)


def build_train_ds(cfg):
    images = _load_arrays(cfg.data_dir)
    n_per_rank = len(images) // hvd.size()
    steps_per_epoch = n_per_rank // cfg.batch_size
    ds = tf.data.Dataset.from_tensor_slices(images)
    ds = ds.shard(num_shards=hvd.size(), index=hvd.rank())
    ds = ds.take(n_per_rank)
    ds = ds.map(lambda x: tf.cast(x, tf.float32) / 127.5 - 1.0, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x: tf.image.random_flip_left_right(x))
    ds = ds.shuffle(2048, reshuffle_each_iteration=True).batch(cfg.batch_size, drop_remainder=True)
    return ds.prefetch(tf.data.AUTOTUNE), steps_per_epoch
