import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from .options import N_DENSE, N_SPARSE

_SPEC = {"label": tf.io.FixedLenFeature([1], tf.float32),
         "I": tf.io.FixedLenFeature([N_DENSE], tf.float32),
         "C": tf.io.FixedLenFeature([N_SPARSE], tf.int64)}


def _files(root, days):
    return [os.path.join(root, d, f) for d in days for f in sorted(tf.io.gfile.listdir(os.path.join(root, d)))]


def make(root, days, batch_size, vocab, training=True):
    ds = tf.data.TFRecordDataset(_files(root, days), num_parallel_reads=4)
    if training:
        ds = ds.shard(hvd.size(), hvd.rank()).shuffle(100_000).repeat()
    ds = ds.batch(batch_size, drop_remainder=training)

    def parse(rec):
        ex = tf.io.parse_example(rec, _SPEC)
        return {"dense_feats": tf.math.log1p(tf.nn.relu(ex["I"])), "sparse_ids": ex["C"] % vocab}, ex["label"]

    return ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)
