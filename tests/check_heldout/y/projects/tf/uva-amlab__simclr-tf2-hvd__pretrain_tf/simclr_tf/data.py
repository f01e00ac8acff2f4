import numpy as np
import tensorflow as tf

from .augment import simclr_view


def make_two_view_dataset(path, per_worker_batch, global_batch, num_shards, index, seed=7):
    """uint8 array (N, 96, 96, 3) -> endless dataset of (view1, view2) batches for one worker.

    Every worker gets the same number of steps per epoch: N // global_batch.
    """
    images = np.load(path, mmap_mode="r")
    steps = len(images) // global_batch
    ds = tf.data.Dataset.from_tensor_slices(np.asarray(images))
    ds = ds.shard(num_shards, index)
    ds = ds.shuffle(10_000, seed=seed, reshuffle_each_iteration=True).repeat()

    def two_views(x):
        x = tf.cast(x, tf.float32) / 255.0
        return simclr_view(x), simclr_view(x)

    ds = ds.map(two_views, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(per_worker_batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    return ds, steps
