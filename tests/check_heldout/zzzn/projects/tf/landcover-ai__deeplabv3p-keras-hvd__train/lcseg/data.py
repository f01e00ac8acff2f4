import os

import numpy as np
import tensorflow as tf


def _read_split(data_dir, split):
    with open(os.path.join(data_dir, "..", split + ".txt")) as f:
        names = [l.strip() for l in f if l.strip()]
    return [os.path.join(data_dir, n + ".jpg") for n in names]


def _decode(path):
    img = tf.image.convert_image_dtype(tf.io.decode_jpeg(tf.io.read_file(path), 3), tf.float32)
    m = tf.io.decode_png(tf.io.read_file(tf.strings.regex_replace(path, r"\.jpg$", "_m.png")), 1)
    return img, tf.cast(m, tf.int32)


def _random_tiles(n, size=512):
    x = np.random.rand(n, size, size, 3).astype("float32")
    y = np.random.randint(0, 5, (n, size, size, 1)).astype("int32")
    return tf.data.Dataset.from_tensor_slices((x, y)), n


def _crop_flip(img, m, crop):
    both = tf.concat([img, tf.cast(m, tf.float32)], -1)
    both = tf.image.random_crop(both, [crop, crop, 4])
    both = tf.image.random_flip_left_right(both)
    both = tf.image.random_flip_up_down(both)
    k = tf.random.uniform([], 0, 4, tf.int32)
    both = tf.image.rot90(both, k)
    return both[..., :3], tf.cast(both[..., 3:], tf.int32)


def get_datasets(cfg):
    """Returns train_ds, val_ds, steps_per_epoch, val_steps."""
    if cfg.dry_run:
        train, n_train = _random_tiles(32)
        val, n_val = _random_tiles(4)
    else:
        tr_files, va_files = _read_split(cfg.data_dir, "train"), _read_split(cfg.data_dir, "val")
        n_train, n_val = len(tr_files), len(va_files)
        train = tf.data.Dataset.from_tensor_slices(tr_files).map(_decode, num_parallel_calls=tf.data.AUTOTUNE)
        val = tf.data.Dataset.from_tensor_slices(va_files).map(_decode, num_parallel_calls=tf.data.AUTOTUNE)
    train = (train.shuffle(2048, seed=None).repeat()
             .map(lambda a, b: _crop_flip(a, b, cfg.crop), num_parallel_calls=tf.data.AUTOTUNE)
             .batch(cfg.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
    val = val.batch(cfg.batch_size).prefetch(tf.data.AUTOTUNE)
    steps_per_epoch = n_train // cfg.batch_size
    val_steps = int(np.ceil(n_val / cfg.batch_size))
    return train, val, steps_per_epoch, val_steps
