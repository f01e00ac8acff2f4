import numpy as np
import tensorflow as tf


def _load_npz(path):
    d = np.load(path)
    return (d["x_train"].astype("float32") / 255., d["y_train"].reshape(-1).astype("int64"),
            d["x_test"].astype("float32") / 255., d["y_test"].reshape(-1).astype("int64"))


def make_datasets(dcfg, num_shards, shard_index):
    """Returns (train_ds, val_ds, steps_per_epoch, val_steps) for this worker."""
    xtr, ytr, xte, yte = _load_npz(dcfg["path"])
    bs = dcfg["batch_size"]
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr))
             .shard(num_shards, shard_index)
             .shuffle(dcfg["shuffle_buffer"], reshuffle_each_iteration=True)
             .batch(bs, drop_remainder=True)
             .repeat()
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((xte, yte))
           .shard(num_shards, shard_index)
           .batch(bs)
           .prefetch(tf.data.AUTOTUNE))
    steps = len(xtr) // num_shards // bs
    return train, val, steps
