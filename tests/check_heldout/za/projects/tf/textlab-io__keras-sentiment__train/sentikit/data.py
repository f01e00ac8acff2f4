import csv

import keras
import tensorflow as tf


def read_tsv(path):
    texts, labels = [], []
    with open(path, newline="") as f:
        for row in csv.reader(f, delimiter="\t"):
            texts.append(row[0])
            labels.append(int(row[1]))
    return texts, labels


def make_vectorizer(texts, vocab_size, seq_len):
    vec = keras.layers.TextVectorization(max_tokens=vocab_size, output_sequence_length=seq_len)
    vec.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(1024))
    return vec


def make_dataset(texts, labels, vec, batch_size, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((texts, labels)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(10000, seed=index).repeat()
    ds = ds.batch(batch_size, drop_remainder=True).map(lambda t, y: (vec(t), y),
                                                      num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)
