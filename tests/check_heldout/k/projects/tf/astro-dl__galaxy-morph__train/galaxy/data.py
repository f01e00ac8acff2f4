import csv
import os

import numpy as np
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


class GalaxyZooData:
    def __init__(self, root, image_size=128, batch_size=32):
        self.root = root
        self.image_size = image_size
        self.batch_size = batch_size
        with open(os.path.join(root, "training_solutions_rev1.csv")) as f:
            rows = list(csv.reader(f))[1:]
        ids = np.array([r[0] for r in rows])
        targets = np.array([[float(v) for v in r[1:]] for r in rows], dtype=np.float32)
        cut = int(0.9 * len(ids))          # file is pre-shuffled by the challenge organisers
        self.train_ids, self.train_y = ids[:cut], targets[:cut]
        self.val_ids, self.val_y = ids[cut:], targets[cut:]

    def _load(self, gid, y, augment):
        path = tf.strings.join([self.root, "/images_training_rev1/", gid, ".jpg"])
        img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        img = tf.image.central_crop(img, 0.5)
        img = tf.image.resize(img, (self.image_size, self.image_size)) / 255.0
        if augment:
            img = tf.image.random_flip_left_right(img)
            img = tf.image.random_flip_up_down(img)
            img = tf.image.rot90(img, tf.random.uniform([], 0, 4, dtype=tf.int32))
        return img, y

    def train_dataset(self, num_shards, shard_index, seed=0):
        ds = tf.data.Dataset.from_tensor_slices((self.train_ids, self.train_y))
        ds = ds.shard(num_shards, shard_index)
        ds = ds.shuffle(8192, seed=seed + shard_index, reshuffle_each_iteration=True).repeat()
        ds = ds.map(lambda g, y: self._load(g, y, True), num_parallel_calls=AUTOTUNE)
        return ds.batch(self.batch_size, drop_remainder=True).prefetch(AUTOTUNE)

    def val_dataset(self):
        ds = tf.data.Dataset.from_tensor_slices((self.val_ids, self.val_y))
        ds = ds.map(lambda g, y: self._load(g, y, False), num_parallel_calls=AUTOTUNE)
        return ds.batch(self.batch_size).prefetch(AUTOTUNE)

    def steps_per_epoch(self, num_shards):
        return len(self.train_ids) // (self.batch_size * num_shards)
