import csv

import numpy as np
import tensorflow as tf
import keras

from sentiment.text import standardize


def read_reviews(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return np.array([r["review"] for r in rows]), np.array([int(r["label"]) for r in rows], dtype="int32")


def build_vectorizer(texts, vocab_size=20000, seq_len=256):
    vec = keras.layers.TextVectorization(max_tokens=vocab_size, output_sequence_length=seq_len,
                                         standardize=standardize)
    vec.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(1024))
    return vec


def make_dataset(texts, labels, vectorizer, batch_size, num_shards=1, index=0, training=True, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((texts, labels)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(10000, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size).map(lambda x, y: (vectorizer(x), y), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)
