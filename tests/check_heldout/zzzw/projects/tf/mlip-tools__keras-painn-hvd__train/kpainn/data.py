import numpy as np
import tensorflow as tf


class NpzMolecules:
    def __init__(self, path):
        d = np.load(path)
        self.Z, self.R, self.F, self.E, self.N = d["Z"], d["R"], d["F"], d["E"], d["N"]
        self.ptr = np.concatenate([[0], np.cumsum(self.N)])

    def __len__(self):
        return len(self.N)

    def batch(self, idx):
        sl = [slice(self.ptr[i], self.ptr[i + 1]) for i in idx]
        return {
            "z": np.concatenate([self.Z[s] for s in sl]).astype(np.int32),
            "pos": np.concatenate([self.R[s] for s in sl]).astype(np.float32),
            "forces": np.concatenate([self.F[s] for s in sl]).astype(np.float32),
            "energy": self.E[idx].astype(np.float32),
            "natoms": self.N[idx].astype(np.float32),
            "seg": np.repeat(np.arange(len(idx)), self.N[idx]).astype(np.int32),
        }


def make_tf_dataset(path, batch_size, rank, world, shuffle=True, seed=0):
    mols = NpzMolecules(path)

    def gen():
        ids = np.arange(len(mols))
        if shuffle:
            ids = np.random.default_rng(seed).permutation(ids)
        ids = ids[rank::world][:len(mols) // world]
        for k in range(0, len(ids) - batch_size + 1, batch_size):
            yield mols.batch(ids[k:k + batch_size])

    sig = {"z": tf.TensorSpec([None], tf.int32), "pos": tf.TensorSpec([None, 3], tf.float32),
           "forces": tf.TensorSpec([None, 3], tf.float32), "energy": tf.TensorSpec([None], tf.float32),
           "natoms": tf.TensorSpec([None], tf.float32), "seg": tf.TensorSpec([None], tf.int32)}
    return tf.data.Dataset.from_generator(gen, output_signature=sig).prefetch(tf.data.AUTOTUNE)
