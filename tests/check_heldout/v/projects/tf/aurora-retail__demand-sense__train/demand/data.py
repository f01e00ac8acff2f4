import os

import tensorflow as tf

from demand import settings


def _parse(record):
    ex = tf.io.parse_single_example(record, {
        "x": tf.io.FixedLenFeature([settings.FEATURE_DIM], tf.float32),
        "store": tf.io.FixedLenFeature([], tf.int64),
        "units": tf.io.FixedLenFeature([], tf.float32),
    })
    return {"x": ex["x"], "store": ex["store"]}, tf.math.log1p(ex["units"])


def load_split(data_dir, split, batch_size, worker_index, num_workers, shuffle):
    """Reads this worker's files of the split (file-level sharding, one file list per split)."""
    files = tf.data.Dataset.list_files(os.path.join(data_dir, split, "*.tfrecord.gz"), shuffle=False)
    files = files.shard(num_workers, worker_index)
    ds = files.interleave(lambda f: tf.data.TFRecordDataset(f, compression_type="GZIP"),
                          cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    if shuffle:
        ds = ds.shuffle(10_000)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
