import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def _augment(img, mask):
    flip = tf.random.uniform(()) > 0.5
    img = tf.cond(flip, lambda: tf.image.flip_left_right(img), lambda: img)
    mask = tf.cond(flip, lambda: tf.image.flip_left_right(mask), lambda: mask)
    return img, mask


def build_datasets(cfg):
    d = np.load(cfg.data.path)
    xtr, ytr = d["x_train"].astype("float32") / 255., d["y_train"][..., None].astype("int32")
    xva, yva = d["x_val"].astype("float32") / 255., d["y_val"][..., None].astype("int32")
    bs = cfg.data.batch_size

    train = tf.data.Dataset.from_tensor_slices((xtr, ytr)).shard(hvd.size(), hvd.rank())
    if cfg.data.augment:
        train = train.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    train = train.shuffle(512).batch(bs, drop_remainder=True).repeat().prefetch(2)
    val = (tf.data.Dataset.from_tensor_slices((xva, yva)).shard(hvd.size(), hvd.rank())
           .batch(bs, drop_remainder=True).repeat())

    steps = len(xtr) // (bs * hvd.size())
    val_steps = max(1, len(xva) // (bs * hvd.size()))
    return train, val, steps, val_steps
