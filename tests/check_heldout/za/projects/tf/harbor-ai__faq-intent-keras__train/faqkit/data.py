import json
import os

import keras
import tensorflow as tf


def load_pairs(data_dir, split):
    with open(os.path.join(data_dir, f"{split}.jsonl")) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    return [r["question"] for r in rows], [int(r["answer_id"]) for r in rows]


def build_vectorizer(questions, max_tokens, seq_len):
    vec = keras.layers.TextVectorization(max_tokens=max_tokens, output_sequence_length=seq_len,
                                         standardize="lower_and_strip_punctuation")
    vec.adapt(questions)
    return vec


def to_dataset(questions, labels, vec, batch_size, num_shards, shard, shuffle):
    n = len(labels) // (num_shards * batch_size) * (num_shards * batch_size)
    ds = tf.data.Dataset.from_tensor_slices((questions[:n], labels[:n])).shard(num_shards, shard)
    if shuffle:
        ds = ds.shuffle(len(labels), reshuffle_each_iteration=True)
    return ds.batch(batch_size).map(lambda q, y: (vec(q), y)).prefetch(tf.data.AUTOTUNE)
