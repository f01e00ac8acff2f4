import os

import tensorflow as tf
import horovod.tensorflow as hvd

AUTOTUNE = tf.data.AUTOTUNE


def _list(data_dir, split):
    classes = sorted(os.listdir(os.path.join(data_dir, split)))
    files, labels = [], []
    for idx, c in enumerate(classes):
        for f in sorted(os.listdir(os.path.join(data_dir, split, c))):
            files.append(os.path.join(data_dir, split, c, f))
            labels.append(idx)
    return files, labels, len(classes)


def _load(size, training):
    def fn(path, label):
        img = tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
        img = tf.image.resize(img, (size + 32, size + 32) if training else (size, size))
        if training:
            img = tf.image.random_flip_left_right(tf.image.random_crop(img, (size, size, 3)))
        return img / 127.5 - 1.0, label
    return fn


def train_pipeline(data_dir, size, batch_size):
    files, labels, num_classes = _list(data_dir, "train")
    ds = tf.data.Dataset.from_tensor_slices((files, labels))
    ds = ds.shuffle(len(files), reshuffle_each_iteration=True)
    ds = ds.shard(hvd.size(), hvd.rank()).repeat()
    ds = ds.map(_load(size, True), num_parallel_calls=AUTOTUNE).batch(batch_size, drop_remainder=True)
    return ds.prefetch(AUTOTUNE), len(files), num_classes


def val_pipeline(data_dir, size, batch_size):
    files, labels, _ = _list(data_dir, "val")
    ds = tf.data.Dataset.from_tensor_slices((files, labels)).shard(hvd.size(), hvd.rank())
    return ds.map(_load(size, False), num_parallel_calls=AUTOTUNE).batch(batch_size).prefetch(AUTOTUNE)
