import numpy as np
import tensorflow as tf


def make_datasets(cfg, rank, size):
    blob = np.load(cfg.data_path)
    x, y = blob["images"].astype("float32") / 255.0, blob["labels"].astype("int64")
    n_val = int(len(x) * cfg.val_fraction)
    train = (tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:])).shard(size, rank)
             .shuffle(2048, seed=rank).batch(cfg.per_worker_batch, drop_remainder=True))
    # equal number of equal-sized validation batches on every worker
    val_steps = n_val // (cfg.per_worker_batch * size)
    val = (tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val])).shard(size, rank)
           .batch(cfg.per_worker_batch, drop_remainder=True).take(val_steps))
    train_steps = (len(x) - n_val) // (cfg.per_worker_batch * size)
    return train.take(train_steps), val, int(y.max()) + 1
