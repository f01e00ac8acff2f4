import os

import tensorflow as tf

FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def _parse(size):
    def fn(record):
        ex = tf.io.parse_single_example(record, FEATURES)
        img = tf.io.decode_png(ex["image"], channels=1)
        img = tf.image.resize(tf.cast(img, tf.float32) / 255.0, (size, size))
        return tf.image.grayscale_to_rgb(img), ex["label"]
    return fn


def train_input_fn(cfg, ctx: tf.distribute.InputContext):
    files = tf.data.Dataset.list_files(
        os.path.join(cfg.tfrecord_dir, "train-*.tfrecord"), shuffle=False)
    # one slice of the shards per worker, as distribute_datasets_from_function did
    files = files.shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                          num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(4096).repeat()
    ds = ds.map(_parse(cfg.image_size), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(cfg.per_replica_batch, drop_remainder=True).prefetch(2)


def eval_input_fn(cfg):
    # validation is small: every worker reads all of it
    files = sorted(tf.io.gfile.glob(os.path.join(cfg.tfrecord_dir, "val-*.tfrecord")))
    ds = tf.data.TFRecordDataset(files).map(_parse(cfg.image_size))
    return ds.batch(cfg.per_replica_batch).prefetch(2)
