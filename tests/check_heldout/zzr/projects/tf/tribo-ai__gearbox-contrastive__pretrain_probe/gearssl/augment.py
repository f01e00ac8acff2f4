import tensorflow as tf


def random_crop_resize(x, min_frac=0.7):
    t = tf.shape(x)[0]
    frac = tf.random.uniform([], min_frac, 1.0)
    length = tf.cast(tf.cast(t, tf.float32) * frac, tf.int32)
    start = tf.random.uniform([], 0, t - length + 1, dtype=tf.int32)
    crop = x[start:start + length]
    return tf.image.resize(crop[None, :, None, :], [t, 1])[0, :, 0, :]


def augment(x):
    x = random_crop_resize(x)
    x = x * tf.random.uniform([1, tf.shape(x)[1]], 0.8, 1.2)
    return x + tf.random.normal(tf.shape(x), stddev=0.02)


def pair_dataset(x, batch, num_shards, index, seed):
    ds = tf.data.Dataset.from_tensor_slices(x).shard(num_shards, index)
    ds = ds.shuffle(8192, seed=seed, reshuffle_each_iteration=True)
    ds = ds.map(lambda w: (augment(w), augment(w)), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(2)
