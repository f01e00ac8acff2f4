import numpy as np
import tensorflow as tf


def window_dataset(paths, seq_len, batch, rank, size, training=True):
    arrays = [np.load(p, mmap_mode="r") for p in paths]
    spans = [(i, s) for i, a in enumerate(arrays) for s in range(0, len(a) - seq_len - 1, seq_len)]
    table = np.array(spans, dtype=np.int64)

    def fetch(k):
        i, s = table[k]
        w = np.asarray(arrays[i][s:s + seq_len + 1], dtype=np.int32)
        return w[:-1], w[1:]

    ds = tf.data.Dataset.range(len(table)).shard(size, rank)
    if training:
        ds = ds.shuffle(len(table) // size + 1, seed=1234).repeat()
    ds = ds.map(lambda k: tf.numpy_function(fetch, [k], (tf.int32, tf.int32)),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x, y: (tf.ensure_shape(x, [seq_len]), tf.ensure_shape(y, [seq_len])))
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
