import os
from collections import defaultdict

import numpy as np
import tensorflow as tf


def read_list(root, name):
    """VehicleID list files: '<image id> <vehicle id>' per line."""
    rows = [l.split() for l in open(os.path.join(root, 'train_test_split', name)) if l.strip()]
    return [os.path.join(root, 'image', r[0] + '.jpg') for r in rows], [int(r[1]) for r in rows]


def decode(path, size=(224, 224)):
    img = tf.image.decode_jpeg(tf.io.read_file(path), channels=3)
    return tf.image.resize(img, size) / 127.5 - 1.0


def pk_batches(labels, p, k, seed):
    """All P x K batches of one epoch, the same list on every worker for a given seed."""
    rng = np.random.RandomState(seed)
    by_id = defaultdict(list)
    for i, v in enumerate(labels):
        by_id[v].append(i)
    ids = np.array(sorted(by_id))
    rng.shuffle(ids)
    out = []
    for s in range(0, len(ids) - p + 1, p):
        b = []
        for v in ids[s:s + p]:
            b.extend(rng.choice(by_id[v], k, replace=len(by_id[v]) < k))
        out.append(b)
    return out


def train_dataset(paths, labels, p, k, rank, world, epochs, seed=0):
    """Batches i with i % world == rank, equal count per worker, fresh order each epoch."""
    paths, labels = np.array(paths), np.array(labels)
    n_per_worker = len(pk_batches(labels, p, k, seed)) // world

    def gen():
        for e in range(epochs):
            mine = pk_batches(labels, p, k, seed + e)[rank::world][:n_per_worker]
            for b in mine:
                yield paths[b], labels[b]

    ds = tf.data.Dataset.from_generator(gen, output_signature=(
        tf.TensorSpec([p * k], tf.string), tf.TensorSpec([p * k], tf.int64)))
    ds = ds.map(lambda x, y: (tf.map_fn(decode, x, fn_output_signature=tf.float32), y),
                num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE), n_per_worker
