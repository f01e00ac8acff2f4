import numpy as np
import tensorflow as tf

N_DENSE, N_SPARSE = 13, 26


def load_split(path):
    z = np.load(path)
    dense = np.log1p(np.maximum(z["dense"], 0)).astype(np.float32)
    return dense, z["sparse"].astype(np.int64), z["label"].astype(np.float32)


def input_fn(path, batch_size, num_workers, worker, training=True, seed=42):
    dense, sparse, label = load_split(path)
    ds = tf.data.Dataset.from_tensor_slices(((dense, sparse), label))
    ds = ds.shard(num_workers, worker)
    if training:
        ds = ds.shuffle(200_000, seed=seed, reshuffle_each_iteration=True)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def steps_for(path, batch_size, num_workers):
    return len(np.load(path)["label"]) // num_workers // batch_size
