import os
from collections import Counter

import tensorflow as tf


def cached_vocab(train_files, cache, max_size=8000):
    if tf.io.gfile.exists(cache):
        with tf.io.gfile.GFile(cache) as f:
            return f.read().split("\n")
    c = Counter()
    for p in train_files:
        with open(p, encoding="utf-8") as f:
            for line in f:
                c.update(line.split())
    words = [w for w, _ in c.most_common(max_size)]
    with tf.io.gfile.GFile(cache, "w") as f:
        f.write("\n".join(words))
    return words


def lookup_table(words):
    init = tf.lookup.KeyValueTensorInitializer(tf.constant(words), tf.range(4, len(words) + 4, dtype=tf.int64))
    return tf.lookup.StaticHashTable(init, default_value=3)


def dataset(src_file, tgt_file, table, max_tokens, num_shards, shard_index, shuffle=True):
    def enc(s, t):
        s = tf.concat([table.lookup(tf.strings.split(s)), [2]], 0)
        t = tf.concat([[1], table.lookup(tf.strings.split(t)), [2]], 0)
        return s, t
    ds = tf.data.Dataset.zip((tf.data.TextLineDataset(src_file), tf.data.TextLineDataset(tgt_file)))
    ds = ds.shard(num_shards, shard_index).map(enc)
    if shuffle:
        ds = ds.shuffle(50000, reshuffle_each_iteration=True)
    bounds = [10, 20, 30, 40, 60, 80]
    sizes = [max_tokens // b for b in bounds] + [max_tokens // 128]
    return ds.bucket_by_sequence_length(lambda s, t: tf.shape(t)[0], bounds, sizes, drop_remainder=shuffle)
