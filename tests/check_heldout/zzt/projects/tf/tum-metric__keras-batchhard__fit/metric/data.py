import numpy as np
import tensorflow as tf


def pk_dataset(x, y, p, k, seed):
    """Endless stream of class-balanced P x K batches drawn with this worker's seed."""
    index = {c: np.flatnonzero(y == c) for c in np.unique(y)}
    classes = np.array([c for c, v in index.items() if len(v) >= k])

    def gen():
        rng = np.random.default_rng(seed)
        while True:
            idx = np.concatenate([rng.choice(index[c], k, replace=False)
                                  for c in rng.choice(classes, p, replace=False)])
            yield x[idx].astype("float32") / 255.0, y[idx].astype("int32")

    sig = (tf.TensorSpec((p * k,) + x.shape[1:], tf.float32), tf.TensorSpec((p * k,), tf.int32))
    return tf.data.Dataset.from_generator(gen, output_signature=sig).prefetch(2)
