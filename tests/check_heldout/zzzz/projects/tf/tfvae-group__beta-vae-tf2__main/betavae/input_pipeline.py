import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def make_train_ds(hp):
    imgs = np.load(hp.data_path)["imgs"].astype(np.float32)[..., None]
    ds = tf.data.Dataset.from_tensor_slices(imgs)
    ds = ds.shuffle(len(imgs), reshuffle_each_iteration=True)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.repeat().batch(hp.batch_size, drop_remainder=True)
    return ds.prefetch(tf.data.AUTOTUNE)
