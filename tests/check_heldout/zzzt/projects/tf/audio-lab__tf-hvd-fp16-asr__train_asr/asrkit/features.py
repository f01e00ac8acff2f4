import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def synthetic_corpus(a, seed=3):
    rs = np.random.RandomState(seed)
    feats = rs.randn(a.utts, a.frames, a.n_mels).astype("float32")
    labels = rs.randint(1, a.vocab, (a.utts, a.label_len)).astype("int32")
    return feats, labels


def train_dataset(a):
    feats, labels = synthetic_corpus(a)
    ds = tf.data.Dataset.from_tensor_slices((feats, labels))
    # one slice of the corpus per GPU
    ds = ds.shard(hvd.local_size(), hvd.local_rank())
    ds = ds.shuffle(2000).repeat().batch(a.batch_size, drop_remainder=True)
    return ds.prefetch(tf.data.AUTOTUNE)
