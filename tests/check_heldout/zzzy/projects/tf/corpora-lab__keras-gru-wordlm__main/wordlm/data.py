import tensorflow as tf


def make_vectorizer(train_path, vocab_size):
    lines = tf.data.TextLineDataset(train_path).filter(lambda l: tf.strings.length(l) > 0)
    vec = tf.keras.layers.TextVectorization(max_tokens=vocab_size, standardize=None, split='whitespace')
    vec.adapt(lines.batch(1024))
    return vec


def lm_dataset(path, vec, seq_len, batch_size, num_shards=1, index=0, training=True):
    """contiguous token stream -> (x, y) windows of seq_len; sharded by window."""
    lines = tf.data.TextLineDataset(path).filter(lambda l: tf.strings.length(l) > 0)
    ids = lines.map(lambda l: vec(tf.strings.join([l, ' <eos>'])))
    ids = ids.unbatch()
    windows = ids.batch(seq_len + 1, drop_remainder=True)
    windows = windows.shard(num_shards, index)
    ds = windows.map(lambda w: (w[:-1], w[1:]))
    if training:
        ds = ds.shuffle(10000, seed=1234).repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def count_windows(path, seq_len):
    n = 0
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                n += len(line.split()) + 1
    return n // (seq_len + 1)
