import numpy as np
import tensorflow as tf


def load_arrays(path):
    d = np.load(path)
    # images uint8 (N, H, W, 3), disc centres in pixels (N, 2) as (x, y)
    return (d["x_train"], d["c_train"]), (d["x_val"], d["c_val"])


def to_dataset(x, c, batch, rank, size, training, image_size):
    ds = tf.data.Dataset.from_tensor_slices((x, c.astype(np.float32) / image_size)).shard(size, rank)
    if training:
        ds = ds.shuffle(4096).repeat()
    ds = ds.map(lambda img, ctr: (tf.cast(img, tf.float32) / 127.5 - 1.0, ctr),
                num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
