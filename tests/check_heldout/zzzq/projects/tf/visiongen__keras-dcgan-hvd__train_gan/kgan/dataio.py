import tensorflow as tf


def image_dataset(params, rank, world):
    if params.synthetic:
        ds = tf.data.Dataset.from_tensor_slices(
            tf.random.uniform([256, params.image_size, params.image_size, 3], -1.0, 1.0))
    else:
        ds = tf.keras.utils.image_dataset_from_directory(
            params.data_dir, labels=None, image_size=(params.image_size, params.image_size), batch_size=None,
            shuffle=False)
        ds = ds.map(lambda x: x / 127.5 - 1.0)
    ds = ds.shard(world, rank)
    return ds.shuffle(1024).batch(params.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
