import csv

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from . import defaults


def read_tsv(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["document"]:
                texts.append(row["document"])
                labels.append(int(row["label"]))
    return np.array(texts), np.array(labels, dtype="float32")


def make_vectorizer(texts):
    # adapted on the full training text on every worker -> identical vocabularies
    vec = keras.layers.TextVectorization(max_tokens=defaults.MAX_TOKENS,
                                         output_sequence_length=defaults.SEQ_LEN)
    vec.adapt(tf.data.Dataset.from_tensor_slices(texts).batch(1024))
    return vec


def make_dataset(texts, labels, vectorizer, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices((texts, labels))
    ds = ds.shard(num_shards=hvd.size(), index=hvd.rank())
    if training:
        ds = ds.shuffle(20000, seed=defaults.SEED).repeat()
    ds = ds.batch(batch_size).map(lambda t, y: (vectorizer(t), y), num_parallel_calls=tf.data.AUTOTUNE)
    if not training:
        ds = ds.repeat()
    return ds.prefetch(tf.data.AUTOTUNE)
