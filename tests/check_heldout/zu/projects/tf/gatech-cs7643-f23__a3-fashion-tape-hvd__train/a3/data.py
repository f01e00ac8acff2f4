import numpy as np
import tensorflow as tf
import keras


def fashion_mnist(per_worker_batch, num_workers, worker_index, seed=7643):
    (xtr, ytr), (xte, yte) = keras.datasets.fashion_mnist.load_data()
    xtr = (xtr[..., None] / 255.0).astype(np.float32)
    xte = (xte[..., None] / 255.0).astype(np.float32)
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr.astype(np.int64)))
             .shard(num_workers, worker_index)
             .shuffle(60000 // num_workers, seed=seed + worker_index, reshuffle_each_iteration=True)
             .batch(per_worker_batch, drop_remainder=True))
    test = (tf.data.Dataset.from_tensor_slices((xte, yte.astype(np.int64)))
            .shard(num_workers, worker_index)
            .batch(256))
    return train, test
