import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

import config

AUTOTUNE = tf.data.AUTOTUNE


def _label_of(path):
    parts = tf.strings.split(path, os.sep)
    return tf.argmax(tf.cast(tf.equal(parts[-2], config.CLASSES), tf.int32))


def _load(path):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
    img = tf.image.resize(img, (config.IMG_SIZE, config.IMG_SIZE))
    return img / 127.5 - 1.0, _label_of(path)


def make_datasets():
    """Train / val datasets for this worker. Returns (train_ds, val_ds, n_train_per_worker)."""
    pattern = os.path.join(config.DATA_DIR, "*", "*.jpg")
    files = tf.data.Dataset.list_files(pattern)
    n = int(files.cardinality().numpy())
    n_val = int(n * config.VAL_FRACTION)
    val_files = files.take(n_val)
    train_files = files.skip(n_val)

    # every worker reads its own part of the files
    train_files = train_files.shard(hvd.size(), hvd.rank())
    val_files = val_files.shard(hvd.size(), hvd.rank())

    train_ds = (train_files.map(_load, num_parallel_calls=AUTOTUNE)
                .map(lambda x, y: (tf.image.random_flip_left_right(x), y))
                .shuffle(512).repeat().batch(config.BATCH_SIZE).prefetch(AUTOTUNE))
    val_ds = val_files.map(_load, num_parallel_calls=AUTOTUNE).batch(config.BATCH_SIZE).cache()
    return train_ds, val_ds, (n - n_val) // hvd.size()
