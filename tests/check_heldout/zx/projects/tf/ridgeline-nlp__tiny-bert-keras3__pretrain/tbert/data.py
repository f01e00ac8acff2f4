import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _decoder(cfg):
    spec = {
        "input_ids": tf.io.FixedLenFeature([cfg.max_len], tf.int64),
        "input_mask": tf.io.FixedLenFeature([cfg.max_len], tf.int64),
        "masked_lm_positions": tf.io.FixedLenFeature([cfg.max_predictions], tf.int64),
        "masked_lm_ids": tf.io.FixedLenFeature([cfg.max_predictions], tf.int64),
        "masked_lm_weights": tf.io.FixedLenFeature([cfg.max_predictions], tf.float32),
    }

    def decode(record):
        ex = tf.io.parse_single_example(record, spec)
        ex = {k: tf.cast(v, tf.int32) if v.dtype == tf.int64 else v for k, v in ex.items()}
        labels = (ex.pop("masked_lm_ids"), ex.pop("masked_lm_weights"))
        return ex, labels

    return decode


def pretraining_dataset(pattern, cfg, num_workers, worker_index):
    files = tf.data.Dataset.list_files(pattern)
    files = files.shard(num_workers, worker_index)
    ds = files.interleave(
        lambda f: tf.data.TFRecordDataset(f, buffer_size=8 << 20),
        cycle_length=8, block_length=4, num_parallel_calls=AUTOTUNE, deterministic=False)
    ds = ds.map(_decoder(cfg), num_parallel_calls=AUTOTUNE)
    ds = ds.shuffle(10000).repeat()
    ds = ds.batch(cfg.batch_size, drop_remainder=True).prefetch(AUTOTUNE)
    options = tf.data.Options()
    options.threading.private_threadpool_size = 16
    return ds.with_options(options)
