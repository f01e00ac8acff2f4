import numpy as np
import tensorflow as tf


def load(path):
    d = np.load(path)
    ptr = np.concatenate([[0], np.cumsum(d["N"])])
    return d, ptr


def packed_dataset(path, batch, rank, size, shuffle, seed=0):
    """Every worker reads the file and keeps molecules rank, rank+size, ...; batches are packed
    into flat atom arrays with a segment id per atom."""
    d, ptr = load(path)
    n_even = len(d["N"]) // size * size          # same number of molecules on every worker
    idx = np.arange(n_even)[rank::size]

    def gen():
        order = np.random.default_rng(seed).permutation(idx) if shuffle else idx
        stop = len(order) - batch + 1 if shuffle else len(order)   # train: full batches only
        for k in range(0, stop, batch):
            sel = order[k:k + batch]
            zs, rs, fs, seg = [], [], [], []
            for m, i in enumerate(sel):
                a, b = ptr[i], ptr[i + 1]
                zs.append(d["Z"][a:b]); rs.append(d["R"][a:b]); fs.append(d["F"][a:b])
                seg.append(np.full(b - a, m))
            yield (np.concatenate(zs).astype(np.int32), np.concatenate(rs).astype(np.float32),
                   np.concatenate(seg).astype(np.int32), d["E"][sel].astype(np.float32),
                   np.concatenate(fs).astype(np.float32), d["N"][sel].astype(np.float32))

    sig = (tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, 3], tf.float32),
           tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.float32),
           tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.float32))
    return tf.data.Dataset.from_generator(gen, output_signature=sig).prefetch(2)
