import tensorflow as tf

from .config import CATEGORICAL, NUMERIC


def _feature_spec():
    spec = {c: tf.io.FixedLenFeature([], tf.string, default_value="") for c in CATEGORICAL}
    spec.update({n: tf.io.FixedLenFeature([], tf.float32, default_value=0.0) for n in NUMERIC})
    spec["clk"] = tf.io.FixedLenFeature([], tf.int64)
    return spec


def _parse(serialized):
    ex = tf.io.parse_example(serialized, _feature_spec())
    y = tf.cast(tf.reshape(ex.pop("clk"), [-1, 1]), tf.float32)
    return ex, y


def train_dataset(pattern, batch_size, rank, size):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(size, rank)  # day partitions split by file index
    ds = files.shuffle(1024, seed=rank).repeat()
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(50_000).batch(batch_size, drop_remainder=True)
    return ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)


def eval_dataset(pattern, batch_size):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    ds = tf.data.TFRecordDataset(files).batch(batch_size)
    return ds.map(_parse).prefetch(2)
