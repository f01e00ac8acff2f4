import glob
import os

import tensorflow as tf

SPEC = {"user": tf.io.FixedLenFeature([], tf.string),
        "item": tf.io.FixedLenFeature([], tf.string),
        "ts": tf.io.FixedLenFeature([], tf.int64)}


def day_files(data_dir, n_days):
    days = sorted(glob.glob(os.path.join(data_dir, "dt=*")))[-n_days:]
    files = []
    for d in days:
        files += sorted(glob.glob(os.path.join(d, "*.tfrecord.gz")))
    return files


def make_dataset(files, batch_size, rank, world, eval_split=False):
    mine = files[rank::world]
    ds = tf.data.Dataset.from_tensor_slices(mine)
    if not eval_split:
        ds = ds.shuffle(len(mine), reshuffle_each_iteration=True).repeat()
    ds = ds.interleave(lambda f: tf.data.TFRecordDataset(f, compression_type="GZIP"),
                       cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    if not eval_split:
        ds = ds.shuffle(200_000)
    ds = ds.batch(batch_size, drop_remainder=True)
    return ds.map(lambda r: tf.io.parse_example(r, SPEC), num_parallel_calls=tf.data.AUTOTUNE).prefetch(4)
