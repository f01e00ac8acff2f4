import json

import tensorflow as tf


def read_jsonl_shards(paths):
    texts, labels = [], []
    for path in paths:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                texts.append(rec["text"])
                labels.append(rec["label"])
    return texts, labels


def make_vectorizer(texts, vocab_size, seq_len):
    vec = tf.keras.layers.TextVectorization(max_tokens=vocab_size, output_sequence_length=seq_len)
    vec.adapt(tf.constant(sorted(set(texts))))
    return vec


def to_dataset(texts, labels, vectorizer, batch_size, shard=None, training=False):
    ds = tf.data.Dataset.from_tensor_slices((tf.constant(texts), tf.constant(labels, dtype=tf.int32)))
    if shard is not None:
        ds = ds.shard(*shard)
    if training:
        ds = ds.shuffle(20_000).repeat()
    ds = ds.batch(batch_size).map(lambda t, y: (vectorizer(t), y), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)
