import numpy as np
import tensorflow as tf


def _dequant(x):
    x = tf.cast(x, tf.float32)
    return (x + tf.random.uniform(tf.shape(x))) / 256.0


def splits(path, batch_size, rank, size, seed=0):
    d = np.load(path)
    tr, te = d["train"], d["test"]
    # contiguous blocks per worker, reshuffled inside the block
    per = len(tr) // size
    tr = tr[rank * per:(rank + 1) * per]
    tr_ds = (tf.data.Dataset.from_tensor_slices(tr).shuffle(per, seed=seed + rank).repeat()
             .map(_dequant, tf.data.AUTOTUNE).batch(batch_size, drop_remainder=True).prefetch(2))
    per_te = len(te) // size
    te = te[rank * per_te:(rank + 1) * per_te]
    te_ds = tf.data.Dataset.from_tensor_slices(te).map(_dequant).batch(256)
    return tr_ds, te_ds
