import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def _make_windows(series, lookback, horizon):
    n = len(series) - lookback - horizon + 1
    idx = np.arange(lookback)[None, :] + np.arange(n)[:, None]
    x = series[idx][..., None]
    y = series[np.arange(n) + lookback + horizon - 1][:, None]
    return x.astype("float32"), y.astype("float32")


def windows(path, lookback, horizon, batch, val_frac=0.1):
    z = np.load(path)
    series = (z["load"] - z["load"].mean()) / z["load"].std()
    x, y = _make_windows(series, lookback, horizon)
    n_val = int(len(x) * val_frac)
    x_tr, y_tr, x_va, y_va = x[:-n_val], y[:-n_val], x[-n_val:], y[-n_val:]

    per_step = batch * hvd.size()
    keep = (len(x_tr) // per_step) * per_step  # same number of steps on every rank
    train = (tf.data.Dataset.from_tensor_slices((x_tr[:keep], y_tr[:keep]))
             .shard(hvd.size(), hvd.rank())
             .shuffle(8192)
             .batch(batch, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
           .shard(hvd.size(), hvd.rank())
           .batch(1024))
    return train, val
