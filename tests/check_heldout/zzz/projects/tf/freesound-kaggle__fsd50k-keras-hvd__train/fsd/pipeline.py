import csv
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def read_ground_truth(root, split):
    """FSD50K.ground_truth/<split>.csv: fname,labels(comma separated),mids,... -> paths, multi-hot."""
    with open(os.path.join(root, "FSD50K.ground_truth", "vocabulary.csv")) as f:
        vocab = [row[1] for row in csv.reader(f)]
    index = {name: i for i, name in enumerate(vocab)}
    paths, targets = [], []
    with open(os.path.join(root, "FSD50K.ground_truth", f"{split}.csv")) as f:
        for row in csv.DictReader(f):
            y = np.zeros(len(vocab), dtype=np.float32)
            for name in row["labels"].split(","):
                y[index[name]] = 1.0
            paths.append(os.path.join(root, f"FSD50K.{split}_npy", row["fname"] + ".npy"))
            targets.append(y)
    return paths, np.stack(targets), vocab


def _random_segment(path, target, length):
    wav = tf.numpy_function(lambda p: np.load(p.decode()).astype(np.float32), [path], tf.float32)
    wav = tf.concat([wav, tf.zeros([length], tf.float32)], 0)
    start = tf.random.uniform([], 0, tf.maximum(tf.shape(wav)[0] - 2 * length, 0) + 1, dtype=tf.int32)
    seg = wav[start:start + length]
    seg.set_shape([length])
    return seg, target


def train_dataset(paths, targets, batch, cfg):
    length = int(cfg.sample_rate * cfg.segment_seconds)
    ds = tf.data.Dataset.from_tensor_slices((paths, targets))
    ds = ds.shuffle(len(paths), reshuffle_each_iteration=False)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.repeat().shuffle(2048)
    ds = ds.map(lambda p, y: _random_segment(p, y, length), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def clip_segments(path, cfg, hop_seconds=0.5):
    """All overlapping 1 s segments of one clip, for clip-level (max-pooled) evaluation."""
    length, hop = int(cfg.sample_rate * cfg.segment_seconds), int(cfg.sample_rate * hop_seconds)
    wav = np.load(path).astype(np.float32)
    if len(wav) < length:
        wav = np.pad(wav, (0, length - len(wav)))
    return np.stack([wav[s:s + length] for s in range(0, len(wav) - length + 1, hop)])
