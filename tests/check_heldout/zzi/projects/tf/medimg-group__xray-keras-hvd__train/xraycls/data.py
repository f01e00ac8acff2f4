import os

import tensorflow as tf


def _label_from_path(path, classes):
    parts = tf.strings.split(path, os.sep)
    return tf.cast(tf.argmax(tf.cast(parts[-2] == tf.constant(list(classes)), tf.int32)), tf.int32)


def _decode(path, label, size):
    img = tf.io.decode_jpeg(tf.io.read_file(path), channels=1)
    img = tf.image.resize(img, (size, size)) / 255.0
    return img, label


def count_files(root, split, classes):
    return sum(len(tf.io.gfile.glob(os.path.join(root, split, c, "*.jpeg"))) for c in classes)


def xray_dataset(cfg, split, num_shards, index, training):
    pattern = os.path.join(cfg.image_dir, split, "*", "*.jpeg")
    files = tf.data.Dataset.list_files(pattern, shuffle=True, seed=42)
    files = files.shard(num_shards, index)
    ds = files.map(lambda p: (p, _label_from_path(p, cfg.classes)))
    ds = ds.map(lambda p, y: _decode(p, y, cfg.img_size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y)).repeat()
    return ds.batch(cfg.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def class_weights(root, split, classes):
    """Inverse-frequency weights, e.g. {0: 1.9, 1: 0.67} for the usual NORMAL/PNEUMONIA imbalance."""
    counts = [len(tf.io.gfile.glob(os.path.join(root, split, c, "*.jpeg"))) for c in classes]
    total = float(sum(counts))
    return {i: total / (len(classes) * max(n, 1)) for i, n in enumerate(counts)}
