"""tf.data input for the image-classification TFRecords (encoded PNG + int label)."""
import tensorflow as tf

IMAGE_SIZE = 64


def _parse(record):
    ex = tf.io.parse_single_example(record, {
        "image/encoded": tf.io.FixedLenFeature([], tf.string),
        "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    })
    img = tf.io.decode_png(ex["image/encoded"], channels=3)
    img = tf.image.resize(img, [IMAGE_SIZE, IMAGE_SIZE]) / 255.0
    return img, ex["image/class/label"]


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_brightness(img, 0.1)
    return img, label


def build_dataset(file_pattern, batch_size, training, seed=1234):
    files = tf.io.gfile.glob(file_pattern)
    ds = tf.data.Dataset.from_tensor_slices(sorted(files))
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=tf.data.AUTOTUNE)

    # each worker reads a different part of the data
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    options.deterministic = not training
    ds = ds.with_options(options)

    ds = ds.map(_parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(4096, seed=seed).map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
