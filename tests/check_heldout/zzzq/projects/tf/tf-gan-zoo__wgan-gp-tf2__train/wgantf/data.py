import tensorflow as tf


def _decode(path, size):
    img = tf.io.decode_image(tf.io.read_file(path), channels=3, expand_animations=False)
    img = tf.image.resize(img, [size, size])
    return tf.cast(img, tf.float32) / 127.5 - 1.0


def build_dataset(cfg, rank, world):
    per_worker = cfg.global_batch_size // world
    if cfg.synthetic:
        ds = tf.data.Dataset.from_tensor_slices(
            tf.random.stateless_uniform([512, cfg.image_size, cfg.image_size, 3], seed=[1, 2], minval=-1, maxval=1))
    else:
        ds = tf.data.Dataset.list_files(cfg.data_dir + "/*.jpg", shuffle=False)
    ds = ds.shard(num_shards=world, index=rank)
    if not cfg.synthetic:
        ds = ds.map(lambda p: _decode(p, cfg.image_size), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.shuffle(2048, reshuffle_each_iteration=True).batch(per_worker, drop_remainder=True)
    return ds.prefetch(tf.data.AUTOTUNE), per_worker
