import tensorflow as tf
import horovod.tensorflow.keras as hvd

_FEATURES = {"image": tf.io.FixedLenFeature([], tf.string),
             "label": tf.io.FixedLenFeature([], tf.int64)}


def _parse(record, size=96):
    ex = tf.io.parse_single_example(record, _FEATURES)
    img = tf.io.decode_png(ex["image"], channels=3)
    img = tf.image.resize(img, (size, size)) / 255.0
    return img, ex["label"]


def make_dataset(pattern, batch_size, training):
    files = sorted(tf.io.gfile.glob(pattern))
    n = sum(1 for f in files for _ in tf.data.TFRecordDataset(f))
    ds = tf.data.TFRecordDataset(files).shard(hvd.size(), hvd.rank())
    ds = ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048).map(lambda x, y: (tf.image.random_flip_left_right(x), y))
    return ds.batch(batch_size).repeat().prefetch(tf.data.AUTOTUNE), n
