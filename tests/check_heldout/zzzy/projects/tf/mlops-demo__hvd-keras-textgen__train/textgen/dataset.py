import numpy as np
import tensorflow as tf


def build_datasets(path, seq_len, batch_size, num_workers=1, worker_index=0, valid_frac=0.05):
    text = open(path, 'rb').read().decode('utf-8')
    vocab = sorted(set(text))
    c2i = {c: i for i, c in enumerate(vocab)}
    ids = np.array([c2i[c] for c in text], dtype=np.int32)
    n_valid = int(len(ids) * valid_frac)

    def windows(a):
        ds = tf.data.Dataset.from_tensor_slices(a).batch(seq_len + 1, drop_remainder=True)
        return ds.map(lambda c: (c[:-1], c[1:]))

    train = windows(ids[:-n_valid]).shard(num_workers, worker_index)
    train = train.shuffle(10000).batch(batch_size, drop_remainder=True).prefetch(2)
    valid = windows(ids[-n_valid:]).shard(num_workers, worker_index).batch(batch_size, drop_remainder=True)
    return train, valid, vocab
