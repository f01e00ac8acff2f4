import tensorflow as tf


def _parse(img_path, mask_path, size):
    img = tf.io.decode_png(tf.io.read_file(img_path), channels=3)
    mask = tf.io.decode_png(tf.io.read_file(mask_path), channels=1)
    img = tf.image.resize(tf.cast(img, tf.float32) / 255.0, (size, size))
    mask = tf.image.resize(mask, (size, size), method="nearest")
    return img, tf.cast(mask[..., 0], tf.int32)


def _augment(img, mask):
    flip = tf.random.uniform(()) < 0.5
    img = tf.cond(flip, lambda: tf.image.flip_left_right(img), lambda: img)
    mask = tf.cond(flip, lambda: tf.reverse(mask, axis=[1]), lambda: mask)
    return img, mask


def make_dataset(data_dir, split, size, batch_size, num_shards=1, shard_index=0, shuffle_buffer=0, training=False):
    imgs = sorted(tf.io.gfile.glob(f"{data_dir}/{split}/images/*.png"))
    masks = [p.replace("/images/", "/masks/") for p in imgs]
    ds = tf.data.Dataset.from_tensor_slices((imgs, masks))
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(shuffle_buffer or len(imgs)).repeat()
    ds = ds.map(lambda a, b: _parse(a, b, size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE), len(imgs)
