import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def _augment(x, strength):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_brightness(x, 0.1 * strength)
    x = tf.image.random_contrast(x, 1 - 0.2 * strength, 1 + 0.2 * strength)
    return tf.clip_by_value(x, 0.0, 1.0)


def build_pipeline(x_lab, y_lab, x_unlab, batch, unsup_ratio, seed=1337):
    """Both streams are split by rank (the unlabelled split is deterministic), then repeated."""
    lab = (tf.data.Dataset.from_tensor_slices((x_lab, y_lab))
           .shard(hvd.size(), hvd.rank()).repeat().shuffle(4096)
           .map(lambda x, y: (_augment(x, 1.0), y)))
    order = np.random.default_rng(seed).permutation(len(x_unlab))
    mine = np.array_split(order, hvd.size())[hvd.rank()]
    unlab = (tf.data.Dataset.from_tensor_slices(x_unlab[mine]).repeat().shuffle(8192)
             .map(lambda x: (x, _augment(x, 3.0))))
    lab = lab.batch(batch, drop_remainder=True)
    unlab = unlab.batch(batch * unsup_ratio, drop_remainder=True)
    return tf.data.Dataset.zip((lab, unlab)).map(lambda l, u: ((l[0], u[0], u[1]), l[1])).prefetch(4)
