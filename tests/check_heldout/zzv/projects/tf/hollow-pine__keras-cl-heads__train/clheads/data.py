import numpy as np
import tensorflow as tf


def load(path):
    d = np.load(path)
    return (d["x_train"], d["y_train"]), (d["x_test"], d["y_test"])


def task_arrays(split, classes):
    x, y = split
    m = np.isin(y, classes)
    # labels are remapped to 0..len(classes)-1 for the task's own head
    lut = {c: i for i, c in enumerate(classes)}
    return x[m].astype("float32") / 255.0, np.array([lut[int(v)] for v in y[m]], dtype="int64")


def train_dataset(x, y, batch_size, shard_index, num_shards, seed):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(num_shards, shard_index)
    ds = ds.shuffle(4096, seed=seed, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def eval_dataset(x, y, batch_size=512):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
