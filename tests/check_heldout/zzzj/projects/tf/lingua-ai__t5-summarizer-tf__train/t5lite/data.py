import json
import os

import tensorflow as tf

PAD, BOS, EOS = 0, 1, 2


def char_vocab(path, corpus_file):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    chars = set()
    with open(corpus_file) as f:
        for line in f:
            chars.update(json.loads(line)["text"])
    vocab = {c: i + 3 for i, c in enumerate(sorted(chars))}
    with open(path, "w") as f:
        json.dump(vocab, f)
    return vocab


def read_examples(jsonl, vocab, max_src, max_tgt):
    src, tgt = [], []
    with open(jsonl) as f:
        for line in f:
            r = json.loads(line)
            src.append([vocab.get(c, 3) for c in r["text"][:max_src - 1]] + [EOS])
            tgt.append([BOS] + [vocab.get(c, 3) for c in r["summary"][:max_tgt - 2]] + [EOS])
    return src, tgt


def make_dataset(src, tgt, batch_size, num_shards, index, training=True):
    ds = tf.data.Dataset.from_generator(lambda: zip(src, tgt), output_signature=(
        tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int32)))
    ds = ds.shard(num_shards, index)
    if training:
        ds = ds.shuffle(10000, seed=17, reshuffle_each_iteration=True)
    ds = ds.padded_batch(batch_size, drop_remainder=training)
    return ds.prefetch(tf.data.AUTOTUNE)
