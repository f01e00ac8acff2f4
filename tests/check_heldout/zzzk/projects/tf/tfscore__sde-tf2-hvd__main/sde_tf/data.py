import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def _preprocess(x, uniform_dequantization=False):
    x = tf.cast(x, tf.float32)
    if uniform_dequantization:
        x = x + tf.random.uniform(tf.shape(x))
        return x / 256.0
    return x / 255.0


def make_dataset(path, batch_size, num_shards=hvd.size(), index=hvd.rank(),
                 shuffle_buffer=10000, uniform_dequantization=False):
    images = np.load(path)
    ds = tf.data.Dataset.from_tensor_slices(images)
    ds = ds.shard(num_shards, index)
    ds = ds.repeat().shuffle(shuffle_buffer)
    ds = ds.map(lambda x: _preprocess(x, uniform_dequantization), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(tf.image.random_flip_left_right)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
