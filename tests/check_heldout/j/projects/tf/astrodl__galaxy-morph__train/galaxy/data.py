import os

import tensorflow as tf

FEATURES = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64)}


def _parse(size):
    def fn(record):
        ex = tf.io.parse_single_example(record, FEATURES)
        img = tf.io.decode_jpeg(ex["image"], channels=3)
        img = tf.image.resize(img, (size, size)) / 255.0
        return img, ex["label"]
    return fn


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_flip_up_down(img)
    img = tf.image.rot90(img, k=tf.random.uniform([], 0, 4, dtype=tf.int32))
    return img, label


def make_datasets(cfg, rank, size):
    """File-level shards: each worker reads its own TFRecord files, nothing is read twice."""
    def files(split):
        pattern = os.path.join(cfg["data_dir"], f"{split}-*.tfrecord")
        return tf.data.Dataset.list_files(pattern, shuffle=False).shard(size, rank)

    bs = cfg["batch_size"]
    train_ds = (files("train")
                .interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
                .map(_parse(cfg["image_size"]), num_parallel_calls=tf.data.AUTOTUNE)
                .shuffle(4096).repeat()
                .map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
                .batch(bs, drop_remainder=True).prefetch(tf.data.AUTOTUNE))
    heldout_ds = (files("heldout").flat_map(tf.data.TFRecordDataset)
                  .map(_parse(cfg["image_size"])).repeat().batch(bs).prefetch(tf.data.AUTOTUNE))
    steps = {"train": cfg["n_train"] // (bs * size), "heldout": max(1, cfg["n_heldout"] // (bs * size))}
    return train_ds, heldout_ds, steps
