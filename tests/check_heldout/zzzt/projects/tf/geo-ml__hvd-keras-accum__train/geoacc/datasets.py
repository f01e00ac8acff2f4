import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def load_arrays(f):
    if f.npy:
        d = np.load(f.npy, allow_pickle=False)
        return d["x"], d["y"]
    rs = np.random.RandomState(5)
    x = rs.rand(f.patches, f.patch_size, f.patch_size, f.bands).astype("float32")
    y = rs.randint(0, f.classes, f.patches).astype("int32")
    return x, y


def split(f):
    x, y = load_arrays(f)
    n_val = len(x) // 10
    xv, yv = x[:n_val], y[:n_val]
    # contiguous blocks of the training part, one per worker
    parts = np.array_split(np.arange(n_val, len(x)), hvd.size())
    mine = parts[hvd.rank()]
    n_min = min(len(p) for p in parts)
    mine = mine[:n_min]
    train = (tf.data.Dataset.from_tensor_slices((x[mine], y[mine]))
             .shuffle(len(mine), reshuffle_each_iteration=True)
             .batch(f.micro_batch, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    # validation is small: every worker scores the whole set
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(256)
    return train, val
