import numpy as np
import tensorflow as tf


def load_npz(path):
    blob = np.load(path)
    norm = lambda a: a.astype("float32") / 255.0
    return (norm(blob["x_train"]), blob["y_train"].astype("int32")), (norm(blob["x_test"]), blob["y_test"].astype("int32"))


def train_pipeline(x, y, batch_size, num_shards, index, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    ds = ds.shuffle(len(y) // num_shards + 1, seed=seed + index, reshuffle_each_iteration=True)
    steps = len(y) // num_shards // batch_size
    return ds.batch(batch_size, drop_remainder=True).take(steps).prefetch(tf.data.AUTOTUNE), steps
