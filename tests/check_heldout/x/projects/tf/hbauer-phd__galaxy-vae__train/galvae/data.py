import numpy as np
import tensorflow as tf


def galaxy_datasets(path, batch_size, rank, size):
    """Equal, disjoint shards: the splits are cut to a multiple of size*batch_size first."""
    with np.load(path) as z:
        train, val = z["train"], z["val"]
    per = size * batch_size
    train = train[: len(train) // per * per]
    val = val[: len(val) // per * per]

    def prep(x):
        return tf.cast(x, tf.float32) / 255.0

    train_ds = (tf.data.Dataset.from_tensor_slices(train).shard(size, rank)
                .shuffle(4096, seed=rank).map(prep).batch(batch_size, drop_remainder=True).prefetch(2))
    val_ds = tf.data.Dataset.from_tensor_slices(val).shard(size, rank).map(prep).batch(batch_size)
    return train_ds, val_ds, len(train) // per
