import keras
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load(name, batch_size):
    loader = getattr(keras.datasets, name)
    (x, y), (xt, yt) = loader.load_data()
    x = (x[..., None] / 255.0).astype(np.float32)
    xt = (xt[..., None] / 255.0).astype(np.float32)
    train = (tf.data.Dataset.from_tensor_slices((x, y.astype(np.int64)))
             .shard(num_shards=hvd.size(), index=hvd.rank())
             .shuffle(20000, reshuffle_each_iteration=True)
             .batch(batch_size, drop_remainder=True)
             .prefetch(2))
    test = (tf.data.Dataset.from_tensor_slices((xt, yt.astype(np.int64)))
            .shard(num_shards=hvd.size(), index=hvd.rank())
            .batch(1000))
    return train, test
