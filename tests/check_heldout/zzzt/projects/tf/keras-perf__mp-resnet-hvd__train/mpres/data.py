import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def _arrays(n, size, ncls, seed):
    rs = np.random.RandomState(seed)
    return (rs.rand(n, size, size, 3).astype("float32"), rs.randint(0, ncls, n).astype("int64"))


def make_datasets(cfg):
    xtr, ytr = _arrays(cfg.train_size, cfg.image_size, cfg.num_classes, 0)
    xva, yva = _arrays(cfg.val_size, cfg.image_size, cfg.num_classes, 1)
    train = (tf.data.Dataset.from_tensor_slices((xtr, ytr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(4096, seed=hvd.rank())
             .repeat()
             .batch(cfg.batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((xva, yva))
           .shard(hvd.size(), hvd.rank())
           .batch(cfg.batch_size)
           .prefetch(tf.data.AUTOTUNE))
    steps = cfg.train_size // (cfg.batch_size * hvd.size())
    return train, val, max(steps, 1)
