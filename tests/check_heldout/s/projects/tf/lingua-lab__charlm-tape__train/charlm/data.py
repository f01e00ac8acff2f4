import tensorflow as tf
import horovod.tensorflow as hvd


def char_table(vocab):
    keys = tf.constant(list(vocab))
    values = tf.range(1, len(vocab) + 1, dtype=tf.int64)
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), default_value=0)


def text_dataset(pattern, cfg, training):
    d = cfg["data"]
    table = char_table(d["vocab"])
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files = files.shard(hvd.size(), hvd.rank())
    ds = files.interleave(tf.data.TextLineDataset, cycle_length=4)
    ds = ds.map(lambda line: table.lookup(tf.strings.unicode_split(tf.strings.lower(line), "UTF-8")))
    ds = ds.unbatch().batch(d["seq_len"] + 1, drop_remainder=True)
    if training:
        ds = ds.shuffle(10000, seed=hvd.rank())
    per_worker = d["global_batch"] // hvd.size()
    ds = ds.repeat().batch(per_worker, drop_remainder=True)
    return ds.map(lambda s: (s[:, :-1], s[:, 1:])).prefetch(tf.data.AUTOTUNE)
