import h5py
import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def read_arrays(path):
    with h5py.File(path, "r") as f:
        x = np.stack([f["logK"][()], f["wells"][()]], axis=-1).astype(np.float32)
        y = f["head"][()][..., None].astype(np.float32)
    return x, y


def global_stats(x_local):
    """Channel mean/std over the whole training set from equal-sized shards."""
    mean = hvd.allreduce(x_local.mean(axis=(0, 1, 2)), op=hvd.Average, name="x_mean")
    sq = hvd.allreduce((x_local ** 2).mean(axis=(0, 1, 2)), op=hvd.Average, name="x_sq")
    return mean.numpy(), np.sqrt(sq.numpy() - mean.numpy() ** 2) + 1e-6


def pipelines(cfg, rank, size):
    x, y = read_arrays(cfg.h5_path)
    x_tr, y_tr, x_va, y_va = x[:-cfg.n_val], y[:-cfg.n_val], x[-cfg.n_val:], y[-cfg.n_val:]
    per = len(x_tr) // size
    x_tr, y_tr = x_tr[rank * per:(rank + 1) * per], y_tr[rank * per:(rank + 1) * per]
    mean, std = global_stats(x_tr)
    norm = lambda a, b: ((a - mean) / std, b)  # noqa: E731
    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).map(norm)
             .shuffle(per, seed=cfg.seed).repeat().batch(cfg.batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = tf.data.Dataset.from_tensor_slices((x_va, y_va)).map(norm).batch(cfg.batch_size)
    return train, val, per // cfg.batch_size
