import tensorflow as tf

IMG_H, IMG_W = 32, 256


def _load(path, label):
    img = tf.io.decode_png(tf.io.read_file(path), channels=1)
    img = tf.image.resize(img, (IMG_H, IMG_W)) / 255.0
    return img, label


def make_dataset(paths, labels, batch_size, num_shards, shard_index, training, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(4096, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.map(_load, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
