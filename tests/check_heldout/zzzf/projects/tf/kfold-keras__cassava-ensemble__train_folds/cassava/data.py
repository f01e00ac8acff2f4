import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

AUTOTUNE = tf.data.AUTOTUNE


def load_npz(path):
    d = np.load(path)
    return d["images"], d["labels"].astype(np.int32)


def fold_ids(labels, n_folds, seed=2020):
    rng = np.random.default_rng(seed)
    ids = np.empty(len(labels), np.int32)
    for c in np.unique(labels):
        idx = rng.permutation(np.flatnonzero(labels == c))
        ids[idx] = np.arange(len(idx)) % n_folds
    return ids


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_brightness(img, 0.1)
    return img, label


def make_dataset(images, labels, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y), num_parallel_calls=AUTOTUNE)
    if training:
        ds = ds.shuffle(2048).map(_augment, num_parallel_calls=AUTOTUNE).repeat()
    else:
        ds = ds.repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(AUTOTUNE)
