import os

import keras
import tensorflow as tf


def _load_split(root, split, size):
    return keras.utils.image_dataset_from_directory(
        os.path.join(root, split), labels="inferred", label_mode="int",
        image_size=(size, size), batch_size=None, shuffle=False)


def make_datasets(s, world, rank):
    aug = keras.Sequential([keras.layers.RandomFlip("horizontal_and_vertical"),
                            keras.layers.RandomRotation(0.15), keras.layers.RandomContrast(0.2)])
    train = _load_split(s.data_dir, "train", s.image_size)
    n_train = int(train.cardinality())
    train = (train.shard(world, rank)
             .shuffle(4096, seed=s.seed + rank, reshuffle_each_iteration=True)
             .batch(s.batch_size, drop_remainder=True)
             .map(lambda x, y: (aug(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
             .repeat()
             .prefetch(tf.data.AUTOTUNE))
    val = (_load_split(s.data_dir, "val", s.image_size)
           .shard(world, rank)
           .batch(64)
           .prefetch(tf.data.AUTOTUNE))
    return train, val, n_train // (s.batch_size * world)
