"""Paired augmentations: the same geometric transform is applied to both acquisition dates."""
import tensorflow as tf


def paired_flip_rotate(before, after, label):
    k = tf.random.uniform((), 0, 4, dtype=tf.int32)
    before, after = tf.image.rot90(before, k), tf.image.rot90(after, k)
    flip = tf.random.uniform(()) < 0.5
    before = tf.cond(flip, lambda: tf.image.flip_left_right(before), lambda: before)
    after = tf.cond(flip, lambda: tf.image.flip_left_right(after), lambda: after)
    return before, after, label


def radiometric_jitter(before, after, label, max_delta=0.05):
    # acquisition dates differ in illumination; jitter them independently
    before = tf.clip_by_value(before + tf.random.uniform((), -max_delta, max_delta), 0.0, 1.0)
    after = tf.clip_by_value(after + tf.random.uniform((), -max_delta, max_delta), 0.0, 1.0)
    return before, after, label
