import numpy as np
import tensorflow as tf


def load_tables(path, val_years):
    z = np.load(path)
    x, y, year = z["x"].astype(np.float32), z["y"].astype(np.float32), z["year"]
    is_val = np.isin(year, val_years)
    mu, sd = x[~is_val].mean(axis=0), x[~is_val].std(axis=0) + 1e-6
    x = (x - mu) / sd
    return {"x_train": x[~is_val], "y_train": y[~is_val], "x_val": x[is_val], "y_val": y[is_val]}


def to_dataset(x, y, batch_size, training, num_shards=1, shard_index=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if num_shards > 1:
        ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(min(len(y), 50000)).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
