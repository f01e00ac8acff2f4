import numpy as np
import tensorflow as tf


def faces_dataset(path, batch_size, num_shards, shard_index, shuffle_buffer):
    faces = np.load(path)                                   # (N, H, W, 3) uint8
    ds = tf.data.Dataset.from_tensor_slices(faces)
    ds = ds.shard(num_shards, shard_index)
    ds = ds.shuffle(shuffle_buffer, reshuffle_each_iteration=True)
    ds = ds.map(lambda x: (tf.cast(x, tf.float32) - 127.5) / 127.5, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x: tf.image.random_flip_left_right(x), num_parallel_calls=tf.data.AUTOTUNE)
    # equal number of full batches on every worker
    steps = (len(faces) // num_shards) // batch_size
    return ds.batch(batch_size, drop_remainder=True).take(steps).prefetch(tf.data.AUTOTUNE), steps
