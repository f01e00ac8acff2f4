import csv

import tensorflow as tf


def read_tsv(path):
    texts, labels = [], []
    with open(path, encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t"):
            if len(row) == 2:
                texts.append(row[0])
                labels.append(row[1])
    return texts, labels


def label_index(labels):
    return {name: i for i, name in enumerate(sorted(set(labels)))}


def to_dataset(ids, labels, batch_size, num_shards, shard_index, training):
    ds = tf.data.Dataset.from_tensor_slices((ids, labels)).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(4096, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
