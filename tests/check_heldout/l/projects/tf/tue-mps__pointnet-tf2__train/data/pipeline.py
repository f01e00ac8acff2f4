"""ModelNet40 point clouds stored as TFRecords (2048 points per shape)."""
import tensorflow as tf
import horovod.tensorflow as hvd

NUM_POINTS = 2048


def _parse(record):
    ex = tf.io.parse_single_example(record, {
        "points": tf.io.FixedLenFeature([NUM_POINTS * 3], tf.float32),
        "label": tf.io.FixedLenFeature([], tf.int64),
    })
    return tf.reshape(ex["points"], (NUM_POINTS, 3)), ex["label"]


def _augment(points, label):
    theta = tf.random.uniform([], 0, 2 * 3.14159265)
    c, s = tf.cos(theta), tf.sin(theta)
    rot = tf.stack([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    points = tf.matmul(points, rot)
    points = points * tf.random.uniform([1, 3], 0.8, 1.25)
    points = points + tf.clip_by_value(tf.random.normal(tf.shape(points), stddev=0.01), -0.05, 0.05)
    return points, label


def get_dataset(pattern, batch_size, num_points=1024, training=True):
    files = tf.data.Dataset.list_files(pattern)
    files = files.shard(num_shards=hvd.size(), index=hvd.rank())
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                          num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda p, y: (p[:num_points], y))
    if training:
        ds = ds.shuffle(4096).map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
