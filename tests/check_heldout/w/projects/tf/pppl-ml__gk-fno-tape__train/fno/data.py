import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_shard(path, batch_size, rank=hvd.rank(), size=hvd.size()):
    """Inputs: (n, nx, 3) [density, temperature gradients, q-profile]; targets: (n, nx, 1) heat flux.
    Rank r keeps samples r, r+size, ... (truncated to equal length)."""
    d = np.load(path)
    x, y = d["inputs"].astype("float32"), d["flux"].astype("float32")
    n = len(x) // size * size
    x, y = x[rank:n:size], y[rank:n:size]
    steps = len(x) // batch_size
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x)).batch(batch_size, drop_remainder=True)
    return ds.prefetch(tf.data.AUTOTUNE), steps
