import os

import tensorflow as tf


def make_dataset(cfg, split, batch_size, shard_index, num_shards, training):
    spec = {"history": tf.io.FixedLenFeature([cfg.history], tf.float32),
            "target": tf.io.FixedLenFeature([cfg.horizon], tf.float32)}
    files = sorted(tf.io.gfile.glob(os.path.join(cfg.data_root, split, "*.tfrecord")))
    ds = tf.data.TFRecordDataset(files)
    ds = ds.shard(num_shards, shard_index)
    ds = ds.map(lambda r: tf.io.parse_single_example(r, spec), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda ex: (ex["history"][:, None], ex["target"]))
    if training:
        ds = ds.shuffle(20_000)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
