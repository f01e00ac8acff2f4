import numpy as np
import tensorflow as tf


def _fake_galaxies(n, size, n_classes, seed):
    r = np.random.RandomState(seed)
    return (r.rand(n, size, size, 1).astype(np.float32),
            r.randint(0, n_classes, n).astype(np.int64))


def get_datasets(cfg, num_shards, shard_index):
    x, y = _fake_galaxies(cfg.n_train, cfg.image_size, cfg.n_classes, 0)
    xv, yv = _fake_galaxies(cfg.n_val, cfg.image_size, cfg.n_classes, 1)
    train = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, shard_index)
    train = train.shuffle(1000).batch(cfg.batch_size, drop_remainder=True)
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).shard(num_shards, shard_index).batch(cfg.batch_size)
    return train, val, (cfg.n_train // num_shards) // cfg.batch_size
