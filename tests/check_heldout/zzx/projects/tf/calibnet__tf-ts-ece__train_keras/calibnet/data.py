import numpy as np
import tensorflow as tf
import keras


def load(name, val_fraction, seed):
    (x, y), (x_test, y_test) = getattr(keras.datasets, name).load_data()
    x = (x[..., None] / 255.0).astype("float32")
    x_test = (x_test[..., None] / 255.0).astype("float32")
    perm = np.random.RandomState(seed).permutation(len(x))
    n_val = int(len(x) * val_fraction)
    return (x[perm[n_val:]], y[perm[n_val:]]), (x[perm[:n_val]], y[perm[:n_val]]), (x_test, y_test)


def train_pipeline(x, y, batch_size, num_shards, shard_index, seed):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, shard_index)
    return (ds.shuffle(len(x) // num_shards + 1, seed=seed).repeat()
              .batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
