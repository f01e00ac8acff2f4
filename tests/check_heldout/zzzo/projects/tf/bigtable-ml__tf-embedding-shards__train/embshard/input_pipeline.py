import glob

import tensorflow as tf


def _parser(n_dense, n_cat, vocab):
    spec = {"y": tf.io.FixedLenFeature([1], tf.float32),
            "dense": tf.io.FixedLenFeature([n_dense], tf.float32),
            "cat": tf.io.FixedLenFeature([n_cat], tf.int64)}

    def parse(rec):
        ex = tf.io.parse_example(rec, spec)
        return ex["dense"], ex["cat"] % vocab, ex["y"]
    return parse


def train_input(cfg, rank, size):
    files = sorted(glob.glob(cfg.data_glob))
    mine = [f for i, f in enumerate(files) if i % size == rank]
    ds = tf.data.Dataset.from_tensor_slices(mine).shuffle(len(mine)).repeat()
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, block_length=64)
    ds = ds.shuffle(65536).batch(cfg.batch_size, drop_remainder=True)
    return ds.map(_parser(cfg.n_dense, cfg.n_cat, cfg.vocab), num_parallel_calls=tf.data.AUTOTUNE).prefetch(2)


def eval_input(cfg, rank, size):
    files = sorted(glob.glob(cfg.eval_glob))
    ds = tf.data.TFRecordDataset(files).shard(size, rank).batch(cfg.batch_size)
    return ds.map(_parser(cfg.n_dense, cfg.n_cat, cfg.vocab))
