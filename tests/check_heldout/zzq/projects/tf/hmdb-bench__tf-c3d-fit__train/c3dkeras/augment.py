import tensorflow as tf


def random_flip(clip, label):
    """Flip all frames of a clip together (never frame by frame)."""
    flip = tf.random.uniform(()) < 0.5
    clip = tf.cond(flip, lambda: tf.reverse(clip, axis=[2]), lambda: clip)
    return clip, label


def jitter_brightness(clip, label, max_delta=0.1):
    delta = tf.random.uniform((), -max_delta, max_delta)
    return tf.clip_by_value(clip + delta, 0.0, 1.0), label


def train_augment(ds):
    return ds.map(random_flip, num_parallel_calls=tf.data.AUTOTUNE).map(jitter_brightness)
