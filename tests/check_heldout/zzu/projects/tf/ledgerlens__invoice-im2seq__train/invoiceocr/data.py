import random

import tensorflow as tf


def list_samples(list_file):
    """`<crop path>\t<field text>` lines; crops of one invoice are adjacent, so mix them up."""
    with open(list_file, encoding="utf-8") as fh:
        rows = [l.rstrip("\n").split("\t", 1) for l in fh if "\t" in l]
    random.shuffle(rows)
    return [r[0] for r in rows], [r[1] for r in rows]


def make_dataset(paths, tokens, height, width, batch, num_shards, shard_index, training):
    ds = tf.data.Dataset.from_tensor_slices((paths, tokens))
    ds = ds.shard(num_shards, shard_index)

    def load(path, tok):
        img = tf.io.decode_png(tf.io.read_file(path), channels=1)
        img = tf.image.resize(tf.image.convert_image_dtype(img, tf.float32), (height, width))
        return (img, tok[:-1]), tok[1:]

    if training:
        ds = ds.shuffle(2048).repeat()
    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
