import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def _load(data_dir, split):
    d = np.load(os.path.join(data_dir, f"{split}.npz"))
    return d["images"], d["labels"].astype("int32")


def get_datasets(data_dir, hp):
    x, y = _load(data_dir, "train")
    train = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    train = train.shuffle(20000).repeat()
    train = train.map(lambda a, b: (tf.image.resize(tf.cast(a, tf.float32), [hp.image_size] * 2) / 127.5 - 1, b),
                      num_parallel_calls=tf.data.AUTOTUNE)
    train = train.batch(hp.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)

    xe, ye = _load(data_dir, "val")
    ev = tf.data.Dataset.from_tensor_slices((xe, ye)).shard(hvd.size(), hvd.rank())
    ev = ev.map(lambda a, b: (tf.image.resize(tf.cast(a, tf.float32), [hp.image_size] * 2) / 127.5 - 1, b))
    ev = ev.batch(hp.batch_size, drop_remainder=True)
    return train, ev
