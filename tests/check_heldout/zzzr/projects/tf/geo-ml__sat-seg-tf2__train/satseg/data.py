import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_tiles(path, n_random, tile, n_classes):
    if n_random:
        rng = np.random.RandomState(3)
        x = rng.rand(n_random, tile, tile, 4).astype("float32")
        y = rng.randint(0, n_classes, (n_random, tile, tile)).astype("int32")
        return x, y
    d = np.load(path)
    return d["x"].astype("float32") / 10000.0, d["y"].astype("int32")


def make_dataset(x, y, batch_size, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(num_shards=hvd.size(), index=hvd.rank())
    if training:
        ds = ds.shuffle(512).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
