import json

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

LABELS = ["negative", "neutral", "positive"]


def read_jsonl(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            ex = json.loads(line)
            texts.append(ex["text"])
            labels.append(LABELS.index(ex["label"]))
    return texts, labels


def build_vectorizer(train_texts, vocab_size, seq_len):
    # adapted on the full training text on every worker: same vocabulary everywhere
    vec = keras.layers.TextVectorization(max_tokens=vocab_size, output_sequence_length=seq_len,
                                         standardize="lower_and_strip_punctuation")
    vec.adapt(tf.data.Dataset.from_tensor_slices(train_texts).batch(1024))
    return vec


def make_dataset(texts, labels, vectorizer, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices((texts, labels))
    ds = ds.shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(20_000, seed=1234, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size)
    ds = ds.map(lambda t, y: (vectorizer(t), y), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)
