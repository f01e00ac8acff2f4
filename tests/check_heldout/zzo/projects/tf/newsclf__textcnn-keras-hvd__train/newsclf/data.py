import csv
import os
import re
from collections import Counter

import numpy as np
import tensorflow as tf

_TOKEN = re.compile(r"[a-z0-9']+")


def load_split(data_dir, split):
    texts, labels = [], []
    with open(os.path.join(data_dir, f"{split}.csv"), newline="", encoding="utf-8") as f:
        for label, title, body in csv.reader(f):
            texts.append(_TOKEN.findall(f"{title} {body}".lower()))
            labels.append(int(label) - 1)
    return texts, np.array(labels, dtype="int32")


def build_vocab(token_lists, size):
    counts = Counter(t for toks in token_lists for t in toks)
    return {t: i + 2 for i, (t, _) in enumerate(counts.most_common(size - 2))}


def encode(token_lists, vocab, seq_len):
    out = np.zeros((len(token_lists), seq_len), dtype="int32")
    for i, toks in enumerate(token_lists):
        ids = [vocab.get(t, 1) for t in toks[:seq_len]]
        out[i, :len(ids)] = ids
    return out


def to_dataset(x, y, batch_size, num_workers, worker, train):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker)
    if train:
        ds = ds.shuffle(20000).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
