import tensorflow as tf
import horovod.tensorflow as hvd

BANDS = 10
CHIP = 128
AUTOTUNE = tf.data.AUTOTUNE


def _parse(serialized):
    feats = tf.io.parse_single_example(serialized, {
        "bands": tf.io.FixedLenFeature([CHIP * CHIP * BANDS], tf.float32),
        "label": tf.io.FixedLenFeature([CHIP * CHIP], tf.int64),
    })
    x = tf.reshape(feats["bands"], [CHIP, CHIP, BANDS])
    y = tf.cast(tf.reshape(feats["label"], [CHIP, CHIP]), tf.int32)
    return x, y


def _flip(x, y):
    if tf.random.uniform([]) < 0.5:
        x, y = tf.reverse(x, [1]), tf.reverse(y, [1])
    return x, y


def chip_dataset(pattern, batch_size, train):
    files = tf.io.gfile.glob(pattern)
    files.sort()
    ds = tf.data.Dataset.from_tensor_slices(files).shard(hvd.size(), hvd.rank())
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=AUTOTUNE)
    ds = ds.map(_parse, num_parallel_calls=AUTOTUNE)
    if train:
        ds = ds.map(_flip, num_parallel_calls=AUTOTUNE).shuffle(512).repeat()
    ds = ds.batch(batch_size, drop_remainder=train)
    return ds.prefetch(AUTOTUNE)
