import os

import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
CLASSES = ["daisy", "dandelion", "roses", "sunflowers", "tulips"]


def _files(root):
    paths, labels = [], []
    for i, c in enumerate(CLASSES):
        names = sorted(os.listdir(os.path.join(root, c)))
        paths += [os.path.join(root, c, n) for n in names]
        labels += [i] * len(names)
    return paths, labels


def _decode(size):
    def fn(path, label):
        img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        img = tf.image.resize(img, (size, size)) / 127.5 - 1.0
        return img, label
    return fn


def load_flowers(cfg, rank, size):
    tr_p, tr_l = _files(os.path.join(cfg.data_dir, "train"))
    va_p, va_l = _files(os.path.join(cfg.data_dir, "val"))
    train = (tf.data.Dataset.from_tensor_slices((tr_p, tr_l))
             .shuffle(len(tr_p), seed=42, reshuffle_each_iteration=False)
             .shard(size, rank)
             .shuffle(2048)
             .map(_decode(cfg.image_size), num_parallel_calls=AUTOTUNE)
             .batch(cfg.batch)
             .repeat()
             .prefetch(AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((va_p, va_l))
           .shard(size, rank)
           .map(_decode(cfg.image_size), num_parallel_calls=AUTOTUNE)
           .batch(cfg.batch)
           .repeat())
    return train, val, len(tr_p), len(va_p)
