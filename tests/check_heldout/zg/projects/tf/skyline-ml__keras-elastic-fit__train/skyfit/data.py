import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

N_CLASSES = 5


def load_arrays(settings):
    """Cloud-type patches; --synthetic gives random data of the same shape for smoke tests."""
    if settings.synthetic:
        rng = np.random.default_rng(0)
        x = rng.random((2048, settings.image_size, settings.image_size, 3), dtype=np.float32)
        y = rng.integers(0, N_CLASSES, 2048)
        return (x[:1792], y[:1792]), (x[1792:], y[1792:])
    with np.load("data/cloud_patches.npz") as z:
        return (z["x_train"], z["y_train"]), (z["x_val"], z["y_val"])


def rank_dataset(x, y, batch_size, training):
    """This rank's 1/size of the arrays; rebuilt whenever the set of workers changes."""
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(4096).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def steps_for(n, batch_size):
    return max(1, n // (batch_size * hvd.size()))
