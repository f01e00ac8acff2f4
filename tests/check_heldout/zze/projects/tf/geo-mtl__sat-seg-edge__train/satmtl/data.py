import numpy as np
import tensorflow as tf


def _edges(mask):
    m = tf.cast(mask[..., None], tf.float32)
    dil = tf.nn.max_pool2d(m[None], 3, 1, "SAME")[0]
    ero = -tf.nn.max_pool2d(-m[None], 3, 1, "SAME")[0]
    return tf.squeeze(dil - ero, -1)


def _prep(image, mask):
    image = tf.cast(image, tf.float32) / 255.0
    return image, {"mask": tf.cast(mask, tf.int32), "edge": _edges(mask)}


def _augment(image, targets):
    if tf.random.uniform(()) < 0.5:
        image = tf.image.flip_left_right(image)
        targets = {k: tf.reverse(v, axis=[1]) for k, v in targets.items()}
    return image, targets


def make_dataset(npz_path, batch_size, num_shards, shard_index, training, seed=7):
    arrays = np.load(npz_path)
    images, masks = arrays["images"], arrays["masks"]
    ds = tf.data.Dataset.from_tensor_slices((images, masks))
    ds = ds.shard(num_shards, shard_index)
    per_shard = len(images) // num_shards
    ds = ds.map(_prep, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048, seed=seed + shard_index).repeat()
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
    return ds, per_shard // batch_size
