"""tf.data input pipeline over sharded TFRecord files."""
import tensorflow as tf
import horovod.tensorflow.keras as hvd

FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def _parse(record, image_size, num_classes):
    ex = tf.io.parse_single_example(record, FEATURES)
    img = tf.io.decode_png(ex["image"], channels=3)
    img = tf.image.resize(img, (image_size, image_size))
    img = tf.cast(img, tf.float32) / 255.0
    return img, tf.one_hot(ex["label"], num_classes)


def make_dataset(pattern, cfg, num_classes, batch_size, training):
    # Files are listed in a fixed order on every worker and split before any shuffling,
    # so each worker reads a disjoint subset of the files.
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(hvd.size(), hvd.rank())
    if training:
        files = files.shuffle(1024, reshuffle_each_iteration=True)
    ds = files.interleave(
        lambda f: tf.data.TFRecordDataset(f, buffer_size=8 << 20),
        cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE, deterministic=not training)
    ds = ds.map(lambda r: _parse(r, cfg["image_size"], num_classes),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.cache()
    if training:
        ds = ds.shuffle(cfg["shuffle_buffer"]).repeat()
    else:
        ds = ds.repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
