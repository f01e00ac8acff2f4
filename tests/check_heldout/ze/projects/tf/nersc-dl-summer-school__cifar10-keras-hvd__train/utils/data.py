import os

import numpy as np
import tensorflow as tf

import horovod.tensorflow.keras as hvd

AUTOTUNE = tf.data.AUTOTUNE


def _augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_crop(tf.pad(x, [[4, 4], [4, 4], [0, 0]], mode="REFLECT"), [32, 32, 3])
    return x, y


def get_datasets(cfg):
    with np.load(os.path.join(cfg.data_dir, "cifar10.npz")) as d:
        x_tr, y_tr, x_va, y_va = d["x_train"], d["y_train"], d["x_test"], d["y_test"]
    x_tr, x_va = x_tr.astype("float32") / 255.0, x_va.astype("float32") / 255.0

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10000, seed=hvd.rank())
             .map(_augment, num_parallel_calls=AUTOTUNE)
             .repeat()
             .batch(cfg.batch_size, drop_remainder=True)
             .prefetch(AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
           .shard(hvd.size(), hvd.rank())
           .batch(256)
           .repeat()
           .prefetch(AUTOTUNE))
    steps = len(x_tr) // (cfg.batch_size * hvd.size())
    val_steps = len(x_va) // (256 * hvd.size())
    return train, val, steps, val_steps
