import numpy as np
import tensorflow as tf
import keras


def load_fashion(batch_size, num_shards, shard_index, seed=7):
    (x, y), (xt, yt) = keras.datasets.fashion_mnist.load_data()
    x = (x[..., None] / 255.0).astype(np.float32)
    xt = (xt[..., None] / 255.0).astype(np.float32)
    y, yt = y.astype(np.int64), yt.astype(np.int64)
    # shard first, then shuffle inside the shard; every shard has the same number of batches
    per_shard = len(x) // num_shards
    lo = shard_index * per_shard
    train = (tf.data.Dataset.from_tensor_slices((x[lo:lo + per_shard], y[lo:lo + per_shard]))
             .shuffle(per_shard, seed=seed + shard_index, reshuffle_each_iteration=True)
             .batch(batch_size, drop_remainder=True)
             .prefetch(2))
    test = tf.data.Dataset.from_tensor_slices((xt, yt)).shard(num_shards, shard_index).batch(1000)
    return train, test
