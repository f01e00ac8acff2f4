import tensorflow as tf


def _feature_spec(cfg):
    return {
        "dense": tf.io.FixedLenFeature([cfg.num_dense], tf.float32),
        "sparse": tf.io.FixedLenFeature([cfg.num_sparse], tf.int64),
        "click": tf.io.FixedLenFeature([], tf.int64),
    }


def make_dataset(cfg, pattern, shard_index, num_shards, training):
    """One rank's input: its own subset of the TFRecord files, parsed and batched."""
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(num_shards, shard_index)
    if training:
        files = files.shuffle(64, seed=shard_index)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=4,
                          num_parallel_calls=tf.data.AUTOTUNE, deterministic=not training)
    spec = _feature_spec(cfg)

    def parse(rec):
        ex = tf.io.parse_single_example(rec, spec)
        sparse = tf.math.floormod(ex["sparse"], cfg.num_buckets)
        return {"dense": ex["dense"], "sparse": sparse}, tf.cast(ex["click"], tf.float32)

    ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(cfg.shuffle_buffer).repeat()
    else:
        ds = ds.repeat()
    return ds.batch(cfg.batch_size_per_replica, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
