import numpy as np
import tensorflow as tf


def load_split(path, batch_size, num_shards, index, training):
    d = np.load(path)
    x = d["x"].astype("float32")
    y = d["y"].astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(8192, reshuffle_each_iteration=True)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE), x.shape[1]
