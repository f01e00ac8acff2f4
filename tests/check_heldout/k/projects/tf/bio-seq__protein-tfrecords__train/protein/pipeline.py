import tensorflow as tf

SPEC = {
    "sequence": tf.io.VarLenFeature(tf.int64),
    "family": tf.io.FixedLenFeature([], tf.int64),
}


def _decode(record, max_len):
    ex = tf.io.parse_single_example(record, SPEC)
    seq = tf.sparse.to_dense(ex["sequence"])[:max_len]
    return seq, ex["family"]


def build_train_dataset(pattern, batch_size, max_len, num_workers, worker_index):
    files = tf.io.gfile.glob(pattern)
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shuffle(len(files))
    ds = ds.shard(num_workers, worker_index)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=8, block_length=16,
                       num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda r: _decode(r, max_len), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(10000)
    return ds.padded_batch(batch_size, padded_shapes=([max_len], []), drop_remainder=True).repeat()


def build_eval_dataset(pattern, batch_size, max_len):
    files = sorted(tf.io.gfile.glob(pattern))
    ds = tf.data.TFRecordDataset(files).map(lambda r: _decode(r, max_len))
    return ds.padded_batch(batch_size, padded_shapes=([max_len], []))
