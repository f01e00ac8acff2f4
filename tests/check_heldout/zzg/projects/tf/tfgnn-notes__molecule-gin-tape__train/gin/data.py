import numpy as np
import tensorflow as tf

NODE_DIM = 16


def synthetic_molecules(n, seed=0, n_classes=2):
    rng = np.random.RandomState(seed)
    mols = []
    for _ in range(n):
        k = rng.randint(4, 24)
        src = np.arange(k - 1)
        edges = np.concatenate([np.stack([src, src + 1]), np.stack([src + 1, src])], axis=1)
        x = rng.rand(k, NODE_DIM).astype(np.float32)
        mols.append((x, edges.astype(np.int32), int(x[:, 0].mean() > 0.5) % n_classes))
    return mols


def load_molecules(path):
    z = np.load(path, allow_pickle=True)
    return list(zip(z["x"], z["edges"], z["y"]))


def shard_molecules(mols, rank, size, seed=0):
    perm = np.random.RandomState(seed).permutation(len(mols))
    perm = perm[: len(perm) // size * size]
    return [mols[i] for i in perm[rank::size]]


def _batch(mols):
    xs, es, gid, ys, off = [], [], [], [], 0
    for g, (x, e, y) in enumerate(mols):
        xs.append(x)
        es.append(e + off)
        gid.append(np.full(len(x), g, np.int32))
        ys.append(y)
        off += len(x)
    return ({"x": np.concatenate(xs), "edges": np.concatenate(es, axis=1), "graph_id": np.concatenate(gid),
             "num_graphs": np.int32(len(mols))}, np.asarray(ys, np.int32))


def graph_dataset(mols, batch_size, shuffle, seed=0):
    n_batches = len(mols) // batch_size

    def gen():
        order = np.random.RandomState(seed).permutation(len(mols)) if shuffle else np.arange(len(mols))
        for b in range(n_batches):
            yield _batch([mols[i] for i in order[b * batch_size:(b + 1) * batch_size]])

    sig = ({"x": tf.TensorSpec([None, NODE_DIM], tf.float32), "edges": tf.TensorSpec([2, None], tf.int32),
            "graph_id": tf.TensorSpec([None], tf.int32), "num_graphs": tf.TensorSpec([], tf.int32)},
           tf.TensorSpec([None], tf.int32))
    return tf.data.Dataset.from_generator(gen, output_signature=sig).prefetch(2)
