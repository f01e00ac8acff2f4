import os

import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE


def _load_pair(img_path, tile):
    img = tf.io.decode_png(tf.io.read_file(img_path), channels=3)
    mask_path = tf.strings.regex_replace(img_path, '/images/', '/masks/')
    mask = tf.io.decode_png(tf.io.read_file(mask_path), channels=1)
    img = tf.image.resize(tf.cast(img, tf.float32) / 255.0, (tile, tile))
    mask = tf.image.resize(mask, (tile, tile), method='nearest')
    return img, tf.cast(mask, tf.int32)


def _augment(img, mask):
    stacked = tf.concat([img, tf.cast(mask, tf.float32)], axis=-1)
    stacked = tf.image.random_flip_left_right(stacked)
    stacked = tf.image.random_flip_up_down(stacked)
    stacked = tf.image.rot90(stacked, k=tf.random.uniform([], 0, 4, dtype=tf.int32))
    return stacked[..., :3], tf.cast(stacked[..., 3:], tf.int32)


def build_dataset(cfg, split, training):
    d = cfg['data']
    files = sorted(tf.io.gfile.glob(os.path.join(d['root'], split, 'images', '*.png')))
    ds = tf.data.Dataset.from_tensor_slices(files)

    options = tf.data.Options()
    # shard across horovod workers
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    options.experimental_deterministic = not training
    ds = ds.with_options(options)

    if training:
        ds = ds.shuffle(min(len(files), d['shuffle_buffer']), reshuffle_each_iteration=True)
    ds = ds.map(lambda p: _load_pair(p, d['tile']), num_parallel_calls=AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=AUTOTUNE)
    return ds.batch(d['batch_size'], drop_remainder=training).prefetch(AUTOTUNE), len(files)
