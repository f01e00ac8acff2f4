import numpy as np
import tensorflow as tf


def gym_clips(num_clips, frames, size, num_elements, num_events, seed):
    rs = np.random.RandomState(seed)
    x = rs.rand(num_clips, frames, size, size, 3).astype(np.float32)
    elements = rs.randint(0, num_elements, num_clips).astype(np.int32)
    events = (elements % num_events).astype(np.int32)
    return x, elements, events


def sharded(arrays, batch, rank, world, shuffle):
    ds = tf.data.Dataset.from_tensor_slices(arrays).shard(world, rank)
    if shuffle:
        ds = ds.shuffle(1000, reshuffle_each_iteration=True)
    return ds.batch(batch, drop_remainder=shuffle)
