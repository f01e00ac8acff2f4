import numpy as np
import tensorflow as tf

from . import config


def load_csv(path):
    """Columns: NUM_FEATURES numeric features, churn (0/1), spend (float), category (int)."""
    arr = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    x = arr[:, :config.NUM_FEATURES]
    y = {"churn": arr[:, config.NUM_FEATURES],
         "spend": np.log1p(arr[:, config.NUM_FEATURES + 1]),
         "category": arr[:, config.NUM_FEATURES + 2].astype(np.int32)}
    return x, y


def standardize(x, mean, std):
    return (x - mean) / np.maximum(std, 1e-6)


def make_dataset(x, y, batch_size, shard_count, shard_index, train):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(shard_count, shard_index)
    if train:
        ds = ds.shuffle(50_000, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
