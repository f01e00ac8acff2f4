import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_split(path):
    z = np.load(path)
    x_tr = z["x_train"].astype("float32")[..., None]
    x_te = z["x_test"].astype("float32")[..., None]
    mu, sd = x_tr.mean(), x_tr.std() + 1e-6
    return ((x_tr - mu) / sd, z["y_train"].astype("int32")), ((x_te - mu) / sd, z["y_test"].astype("int32"))


def to_dataset(x, y, batch, training):
    if training:
        # equal number of full batches on every rank
        keep = (len(x) // (batch * hvd.size())) * batch * hvd.size()
        x, y = x[:keep], y[:keep]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(10_000, seed=hvd.rank(), reshuffle_each_iteration=True)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
