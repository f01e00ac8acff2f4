import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

AUTOTUNE = tf.data.AUTOTUNE


def load_npz(path):
    d = np.load(path)
    return d["x"], d["y"] if "y" in d else None


def _prep(x, y, training):
    x = tf.cast(x, tf.float32) / 255.0
    if training:
        x = tf.image.random_flip_left_right(x)
        x = tf.image.random_flip_up_down(x)
    return x, y


def make_train_ds(x, y, cfg):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(hvd.size(), hvd.rank()).shuffle(4096, seed=cfg.seed)
    ds = ds.map(lambda a, b: _prep(a, b, True), num_parallel_calls=AUTOTUNE)
    steps = len(x) // (cfg.batch_size * hvd.size())  # same number of steps on every worker
    return ds.batch(cfg.batch_size, drop_remainder=True).take(steps).prefetch(AUTOTUNE)


def make_eval_ds(x, y, cfg):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    return ds.map(lambda a, b: _prep(a, b, False)).batch(cfg.batch_size).prefetch(AUTOTUNE)


def make_pl_ds(x, y, x_pl, y_pl, cfg):
    """Labelled + pseudo-labelled images, mixed."""
    xs, ys = np.concatenate([x, x_pl]), np.concatenate([y, y_pl]).astype(y.dtype)
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(len(xs), seed=cfg.seed)
    ds = ds.map(lambda a, b: _prep(a, b, True), num_parallel_calls=AUTOTUNE)
    return ds.batch(cfg.batch_size, drop_remainder=True).prefetch(AUTOTUNE)
