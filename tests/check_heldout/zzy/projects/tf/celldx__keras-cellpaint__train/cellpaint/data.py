import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def load_arrays(path, val_plates):
    z = np.load(path)
    is_val = np.isin(z["plate"].astype(str), np.asarray(val_plates))
    x, y = z["image"], z["moa"].astype(np.int64)
    return (x[~is_val], y[~is_val]), (x[is_val], y[is_val])


def class_weight_from_counts(labels, n_classes):
    counts = np.bincount(labels, minlength=n_classes)
    total = counts.sum()
    return {c: float(total / (n_classes * max(n, 1))) for c, n in enumerate(counts)}


def _prep(x, y):
    x = tf.cast(x, tf.float32) / 255.0
    return x, y


def make_dataset(x, y, batch_size, training):
    """Each worker reads only its own slice of the arrays."""
    n = len(y) // hvd.size() * hvd.size()
    x, y = x[hvd.rank():n:hvd.size()], y[hvd.rank():n:hvd.size()]
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(len(y), reshuffle_each_iteration=True).repeat()
    ds = ds.map(_prep, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda a, b: (tf.image.random_flip_left_right(a), b))
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE), len(y)
