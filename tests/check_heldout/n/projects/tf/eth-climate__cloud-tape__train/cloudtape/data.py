import tensorflow as tf

FEATURES = {
    "bands": tf.io.FixedLenFeature([64 * 64 * 8], tf.float32),
    "cloud_fraction": tf.io.FixedLenFeature([], tf.float32),
}


def _decode(record):
    ex = tf.io.parse_single_example(record, FEATURES)
    return tf.reshape(ex["bands"], (64, 64, 8)), ex["cloud_fraction"]


def count_records(files):
    return sum(1 for _ in tf.data.TFRecordDataset(files))


def train_dataset(files, batch_size, rank, size, seed):
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, deterministic=True)
    ds = ds.shard(size, rank)
    ds = ds.shuffle(4096, seed=seed + rank, reshuffle_each_iteration=True)
    ds = ds.map(_decode, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE)


def eval_dataset(files, batch_size):
    ds = tf.data.TFRecordDataset(files).map(_decode, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
