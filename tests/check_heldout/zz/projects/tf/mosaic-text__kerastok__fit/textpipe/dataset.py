import tensorflow as tf


def count_lines(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def line_dataset(path, vocab, seq_len, batch_size, num_shards=1, index=0,
                 training=True, seed=None):
    """TSV lines `label<TAB>text`, tokenized inside the tf.data graph."""
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(vocab), tf.range(len(vocab), dtype=tf.int64)),
        default_value=1)

    def encode(line):
        parts = tf.strings.split(line, "\t", maxsplit=1)
        label = tf.strings.to_number(parts[0], tf.int32)
        words = tf.strings.regex_replace(tf.strings.lower(parts[1]), r"[^a-z0-9' ]", " ")
        ids = table.lookup(tf.strings.split(words))[:seq_len]
        ids = tf.pad(ids, [[0, seq_len - tf.shape(ids)[0]]])
        return tf.reshape(ids, [seq_len]), label

    ds = tf.data.TextLineDataset(path).shard(num_shards, index)
    if training:
        ds = ds.shuffle(20_000, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.map(encode, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
